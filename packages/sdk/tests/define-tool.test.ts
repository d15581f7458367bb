import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, KindgiDefinitionError, PRIMITIVE_MARKER, primitiveKindOf } from '../src/index.js';

const base = { id: 'acme.echo', description: 'Echoes.', handler: (input: unknown) => input };

function failure(run: () => unknown): KindgiDefinitionError {
  try {
    run();
  } catch (error) {
    if (error instanceof KindgiDefinitionError) return error;
    throw error;
  }
  throw new Error('expected a KindgiDefinitionError');
}

describe('defineTool', () => {
  it('returns plain, frozen data marked as a tool (the marker is not enumerable)', () => {
    const tool = defineTool({
      ...base,
      version: '1.2.0',
      input: { type: 'object', properties: { text: { type: 'string' } } },
      output: { type: 'object' },
      mutating: false,
      effects: [{ kind: 'reads', resource: 'db:cases' }],
      needsSpec: { secrets: { API_KEY: { type: 'string' } } },
      limits: { timeoutMs: 5000 },
      sandbox: 'none',
      network: { egress: ['api.example.com'] },
    });
    expect(Object.isFrozen(tool)).toBe(true);
    expect(primitiveKindOf(tool)).toBe('tool');
    expect((tool as unknown as Record<symbol, unknown>)[PRIMITIVE_MARKER]).toBe('tool');
    expect(Object.keys(tool)).not.toContain(PRIMITIVE_MARKER);
    expect(JSON.parse(JSON.stringify(tool))).toEqual({
      id: 'acme.echo',
      description: 'Echoes.',
      version: '1.2.0',
      input: { type: 'object', properties: { text: { type: 'string' } } },
      output: { type: 'object' },
      mutating: false,
      effects: [{ kind: 'reads', resource: 'db:cases' }],
      needsSpec: { secrets: { API_KEY: { type: 'string' } } },
      limits: { timeoutMs: 5000 },
      sandbox: 'none',
      network: { egress: ['api.example.com'] },
    });
    expect(tool.handler).toBe(base.handler);
  });

  it('moves Zod schemas given as input/output to inputZod/outputZod', () => {
    const input = z.object({ text: z.string() });
    const output = z.object({ echoed: z.string() });
    const tool = defineTool({ ...base, input, output, handler: (value) => ({ echoed: value.text }) });
    expect(tool.inputZod).toBe(input);
    expect(tool.outputZod).toBe(output);
    expect('input' in tool).toBe(false);
    expect('output' in tool).toBe(false);
  });

  it('keeps inputZod/outputZod given directly', () => {
    const inputZod = z.object({ a: z.string() }).transform((value) => value.a);
    const tool = defineTool({ ...base, inputZod, handler: (value) => value });
    expect(tool.inputZod).toBe(inputZod);
  });

  it.each([
    ['Echo', '"Echo"'],
    ['echo', '"echo"'],
    ['acme.Echo', '"acme.Echo"'],
    ['acme.echo_back', '"acme.echo_back"'],
    ['acme..echo', '"acme..echo"'],
  ])('refuses the id %s', (id, shown) => {
    const error = failure(() => defineTool({ ...base, id }));
    expect(error).toMatchObject({ code: 'definition-invalid', field: 'id', source: 'defineTool' });
    expect(error.message).toBe(`defineTool: "id" must be "<pack-id>.<name>" in kebab-case, got ${shown}`);
  });

  it('accepts multi-segment ids', () => {
    expect(defineTool({ ...base, id: 'acme-legal.cases.lookup-v2' }).id).toBe('acme-legal.cases.lookup-v2');
  });

  it.each([
    [
      { input: { type: 'string' } },
      'input',
      '"input" must be an object schema (a tool is called with an object of arguments), got type "string"',
    ],
    [
      { input: { properties: {} } },
      'input',
      '"input" must be an object schema (a tool is called with an object of arguments), got a schema without "type": "object"',
    ],
    [
      { input: z.string() },
      'input',
      '"input" must be an object schema (a tool is called with an object of arguments), got a Zod string',
    ],
    [
      { inputZod: z.array(z.string()) },
      'inputZod',
      '"inputZod" must be an object schema (a tool is called with an object of arguments), got a Zod array',
    ],
    [
      { input: true },
      'input',
      '"input" must be an object schema (a tool is called with an object of arguments), got boolean true',
    ],
    [
      { input: z.object({}), inputZod: z.object({}) },
      'input',
      'give the Zod schema once: as "input" or as "inputZod", not both',
    ],
    [{ inputZod: { type: 'object' } }, 'inputZod', '"inputZod" must be a Zod v4 schema, got an object'],
    [{ output: 'object' }, 'output', '"output" must be a JSON Schema object or a Zod schema, got "object"'],
    [{ handler: undefined }, 'handler', '"handler" must be a function (input, ctx) => output, got nothing'],
    [{ description: '' }, 'description', '"description" must be a non-empty string, got ""'],
    [{ version: '^1.0.0' }, 'version', '"version" must be an exact semantic version like "1.2.0", got "^1.0.0"'],
    [{ mutating: 'no' }, 'mutating', '"mutating" must be true or false, got "no"'],
    [{ effects: [{ resource: 'x' }] }, 'effects[0].kind', '"effects[0].kind" must be a non-empty string, got nothing'],
  ])('names the field of an invalid definition (%#)', (patch, field, message) => {
    const error = failure(() => defineTool({ ...base, ...(patch as object) } as never));
    expect(error.field).toBe(field);
    expect(error.message).toBe(`defineTool: ${message}`);
  });

  it('accepts a Zod object wrapped in a transform or default', () => {
    const input = z
      .object({ a: z.string() })
      .default({ a: 'x' })
      .transform((value) => value.a);
    expect(defineTool({ ...base, input, handler: (value) => value }).inputZod).toBe(input);
  });

  it('refuses something that is not a definition object', () => {
    expect(failure(() => defineTool(null as never)).message).toBe(
      'defineTool: expects a tool definition object, got null',
    );
  });
});
