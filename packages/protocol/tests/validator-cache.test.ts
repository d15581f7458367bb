import { describe, expect, it } from 'vitest';
import { canonicalJson, compareCodeUnits, describeFirstIssue, issuesFromZod, ValidatorCache } from '../src/index.js';

const schema = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    opts: { type: 'object', properties: { depth: { type: 'integer', default: 2 } }, default: {} },
  },
  required: ['name'],
  additionalProperties: false,
};

describe('ValidatorCache', () => {
  it('fills defaults (nested too) on the input side only', () => {
    const cache = new ValidatorCache();
    const input = cache.get(schema, 'input');
    const output = cache.get(schema, 'output');
    if (input.kind === 'err' || output.kind === 'err') throw new Error('compile');
    const a = { name: 'x' };
    input.value(a);
    expect(a).toEqual({ name: 'x', opts: { depth: 2 } });
    const b = { name: 'x' };
    output.value(b);
    expect(b).toEqual({ name: 'x' });
  });

  it('returns Ajv-shaped issues', () => {
    const cache = new ValidatorCache();
    const compiled = cache.get(schema, 'output');
    if (compiled.kind === 'err') throw new Error('compile');
    const result = compiled.value({ extra: 1 });
    expect(result.kind).toBe('err');
    if (result.kind === 'err') {
      expect(result.error).toContainEqual({
        instancePath: '',
        schemaPath: '#/required',
        keyword: 'required',
        params: { missingProperty: 'name' },
        message: "must have required property 'name'",
      });
      expect(result.error.map((i) => i.keyword)).toContain('additionalProperties');
      expect(describeFirstIssue(result.error)).toMatch(/^at \/: /);
    }
  });

  it('compiles a schema once, by identity or by content', () => {
    const cache = new ValidatorCache();
    const first = cache.get(schema, 'input');
    const again = cache.get(structuredClone(schema), 'input');
    expect(first.kind === 'ok' && again.kind === 'ok' && first.value === again.value).toBe(true);
    expect(cache.size('input')).toBe(1);
  });

  it('is bounded', () => {
    const cache = new ValidatorCache({ maxEntries: 3 });
    for (let i = 0; i < 10; i++) cache.get({ type: 'string', maxLength: i }, 'output');
    expect(cache.size('output')).toBe(3);
  });

  it('reports a schema that does not compile instead of throwing', () => {
    const cache = new ValidatorCache();
    expect(cache.get({ type: 'nope' }, 'input').kind).toBe('err');
    expect(cache.get({ type: 'string', unknownKeyword: 1 }, 'input').kind).toBe('err');
    expect(cache.get('not a schema', 'input').kind).toBe('err');
    expect(cache.get(true, 'input').kind).toBe('ok');
  });
});

describe('issuesFromZod', () => {
  it('turns paths into JSON Pointers without keyword', () => {
    expect(issuesFromZod([{ path: ['a', 0, 'b/c'], message: 'bad' }])).toEqual([
      { instancePath: '/a/0/b~1c', message: 'bad' },
    ]);
  });
});

describe('canonicalJson', () => {
  it('sorts keys by code unit at every level, indents two spaces and ends with a newline', () => {
    const text = canonicalJson({ b: 1, a: { z: [{ y: 1, x: 2 }], Z: true, é: 0 }, skipped: undefined });
    expect(text).toBe(
      '{\n  "a": {\n    "Z": true,\n    "z": [\n      {\n        "x": 2,\n        "y": 1\n      }\n    ],\n    "é": 0\n  },\n  "b": 1\n}\n',
    );
  });

  it('orders by code unit, not locale', () => {
    expect(['b', 'B', 'a', '_', 'Ä'].sort(compareCodeUnits)).toEqual(['B', '_', 'a', 'b', 'Ä']);
  });
});
