import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { isZodSchema, toJSONSchemaSync, ValidatorCache } from '../src/index.js';

function convert(schema: unknown, io: 'input' | 'output') {
  const result = toJSONSchemaSync(schema, { io });
  if (result.kind === 'err') throw new Error(result.error.message);
  return result.value as Record<string, unknown>;
}

describe('toJSONSchemaSync', () => {
  it('drops $schema and keeps defaults; a defaulted field is optional on the input side only', () => {
    const schema = z.object({ q: z.string(), limit: z.number().int().default(10) });
    const input = convert(schema, 'input');
    expect(input.$schema).toBeUndefined();
    expect(input.required).toEqual(['q']);
    expect((input.properties as Record<string, { default?: unknown }>).limit?.default).toBe(10);
    expect(convert(schema, 'output').required).toEqual(['q', 'limit']);
  });

  it('tells optional from nullable', () => {
    const schema = convert(z.object({ a: z.string().optional(), b: z.string().nullable() }), 'input');
    expect(schema.required).toEqual(['b']);
    const b = (schema.properties as Record<string, unknown>).b as Record<string, unknown>;
    expect(JSON.stringify(b)).toContain('null');
  });

  it('describes unions and records', () => {
    const schema = convert(
      z.object({ u: z.union([z.string(), z.number()]), r: z.record(z.string(), z.boolean()) }),
      'output',
    );
    const props = schema.properties as Record<string, Record<string, unknown>>;
    expect(JSON.stringify(props.u)).toMatch(/string.*number/);
    expect(props.r?.additionalProperties).toEqual({ type: 'boolean' });
  });

  it('converts a transform on the input side and refuses it on the output side, naming the path', () => {
    const schema = z.object({ n: z.string().transform(Number) });
    expect((convert(schema, 'input').properties as Record<string, unknown>).n).toEqual({ type: 'string' });
    const result = toJSONSchemaSync(schema, { io: 'output' });
    expect(result).toMatchObject({ kind: 'err', error: { code: 'zod-conversion-failed', path: '/properties/n' } });
  });

  it('refuses an unrepresentable type with its path, never widening it', () => {
    const result = toJSONSchemaSync(z.object({ nested: z.object({ big: z.bigint() }) }), { io: 'input' });
    expect(result.kind).toBe('err');
    if (result.kind === 'err') {
      expect(result.error.path).toBe('/properties/nested/properties/big');
      expect(result.error.message).toContain('bigint');
      expect(result.error.message).toContain('/properties/nested/properties/big');
    }
    expect(toJSONSchemaSync(z.date(), { io: 'output' })).toMatchObject({ kind: 'err', error: { path: '' } });
  });

  it('refuses what is not a Zod schema', () => {
    expect(toJSONSchemaSync({ type: 'object' }, { io: 'input' }).kind).toBe('err');
    expect(isZodSchema(z.string())).toBe(true);
    expect(isZodSchema({ _zod: {} })).toBe(false);
  });

  it('produces schemas the shared Ajv compiles and that agree with Zod', () => {
    const schema = z.object({
      name: z.string().min(1),
      tags: z.array(z.string()).default([]),
      n: z.union([z.string(), z.number()]),
    });
    const cache = new ValidatorCache();
    const compiled = cache.get(convert(schema, 'input'), 'input');
    if (compiled.kind === 'err') throw new Error(compiled.error);
    const value = { name: 'x', n: 1 };
    expect(compiled.value(value).kind).toBe('ok');
    expect(value).toEqual({ name: 'x', n: 1, tags: [] });
    expect(compiled.value({ name: '', n: 1 }).kind).toBe('err');
  });
});
