// Declaring tenant secrets in `needsSpec.secrets`. The `expectTypeOf` and `@ts-expect-error` lines are
// checked by the package typecheck (`tsc --noEmit` covers tests/); at run time they are no-ops.
import { runHandler } from '@kindgi/call-runner';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { defineTool, KindgiDefinitionError, type ToolContext, type ToolDefinition } from '../src/index.js';

const base = { id: 'acme.verify', description: 'Verifies.', input: { type: 'object' } } as const;

function failure(run: () => unknown): KindgiDefinitionError {
  try {
    run();
  } catch (error) {
    if (error instanceof KindgiDefinitionError) return error;
    throw error;
  }
  throw new Error('expected a KindgiDefinitionError');
}

describe('needsSpec.secrets typing', () => {
  it('types each Zod-declared secret as what its schema accepts', () => {
    defineTool({
      ...base,
      needsSpec: { secrets: { CITATOR_KEY: z.string().min(20), REGION: z.enum(['eu', 'us']) } },
      handler: (_input, ctx) => {
        expectTypeOf(ctx.secrets).toEqualTypeOf<{ readonly CITATOR_KEY: string; readonly REGION: 'eu' | 'us' }>();
        expectTypeOf(ctx.tenantId).toEqualTypeOf<string>();
        expectTypeOf(ctx.abortSignal).toEqualTypeOf<AbortSignal>();
        return ctx.secrets.CITATOR_KEY.length;
      },
    });
  });

  it('types JSON-Schema-declared secrets by their names, and by `type` for primitives', () => {
    defineTool({
      ...base,
      needsSpec: {
        secrets: { CITATOR_KEY: { type: 'string', minLength: 20 }, PORT: { type: 'integer' }, BLOB: {} },
      },
      handler: (_input, ctx) => {
        expectTypeOf(ctx.secrets).toEqualTypeOf<{
          readonly CITATOR_KEY: string;
          readonly PORT: number;
          readonly BLOB: unknown;
        }>();
        return ctx.secrets.CITATOR_KEY.length;
      },
    });
  });

  it('makes an undeclared name a type error, in both forms', () => {
    defineTool({
      ...base,
      needsSpec: { secrets: { CITATOR_KEY: z.string() } },
      handler: (_input, ctx) => {
        // @ts-expect-error: OTHER_KEY is not declared.
        return ctx.secrets.OTHER_KEY;
      },
    });
    defineTool({
      ...base,
      needsSpec: { secrets: { CITATOR_KEY: { type: 'string' } } },
      handler: (_input, ctx) => {
        // @ts-expect-error: OTHER_KEY is not declared.
        return ctx.secrets.OTHER_KEY;
      },
    });
  });

  it('types a handler with an annotated JSON-Schema input too, and the definition it returns', () => {
    const tool = defineTool({
      ...base,
      needsSpec: { secrets: { CITATOR_KEY: { type: 'string' } } },
      handler: (input: { citation: string }, ctx) => `${input.citation}:${ctx.secrets.CITATOR_KEY.length}`,
    });
    expectTypeOf(tool.handler).parameter(1).toHaveProperty('secrets').toEqualTypeOf<{ readonly CITATOR_KEY: string }>();
  });

  it('keeps a plain ToolContext for a tool that declares no secrets', () => {
    const tool = defineTool({
      ...base,
      needsSpec: { settings: { region: 'eu' } },
      handler: (_input, ctx) => {
        expectTypeOf(ctx).toEqualTypeOf<ToolContext>();
        return 1;
      },
    });
    expectTypeOf(tool).toEqualTypeOf<ToolDefinition<Record<string, unknown>, unknown>>();
  });
});

describe('needsSpec.secrets at definition time', () => {
  it('keeps the declaration as given: Zod schemas for the indexer to convert, JSON Schema as is', () => {
    const key = z.string().min(20);
    const tool = defineTool({
      ...base,
      needsSpec: { secrets: { CITATOR_KEY: key, REGION: { type: 'string' } } },
      handler: () => 1,
    });
    expect(tool.needsSpec).toEqual({ secrets: { CITATOR_KEY: key, REGION: { type: 'string' } } });
    const secrets = tool.needsSpec?.secrets as Record<string, unknown> | undefined;
    expect(secrets?.CITATOR_KEY).toBe(key);
  });

  it.each([
    ['citatorKey', '"citatorKey"'],
    ['1KEY', '"1KEY"'],
    ['API-KEY', '"API-KEY"'],
    ['', '""'],
    [`K${'A'.repeat(128)}`, `"K${'A'.repeat(128)}"`],
  ])('refuses the secret name %j, naming it', (name, shown) => {
    const error = failure(() =>
      defineTool({ ...base, needsSpec: { secrets: { [name]: { type: 'string' } } }, handler: () => 1 }),
    );
    expect(error).toMatchObject({
      code: 'definition-invalid',
      source: 'defineTool',
      field: `needsSpec.secrets.${name}`,
    });
    expect(error.message).toBe(
      `defineTool: secret name ${shown} must be 1 to 128 capital letters, digits and underscores, not starting with a digit (like "CITATOR_KEY")`,
    );
  });

  it('accepts the longest name (128 characters)', () => {
    const name = `K${'A'.repeat(127)}`;
    const tool = defineTool({ ...base, needsSpec: { secrets: { [name]: z.string() } }, handler: () => 1 });
    expect(Object.keys(tool.needsSpec?.secrets as object)).toEqual([name]);
  });

  it.each([
    [
      { secrets: 'CITATOR_KEY' },
      'needsSpec.secrets',
      'an object of secret name → JSON Schema or Zod schema, got "CITATOR_KEY"',
    ],
    [
      { secrets: ['CITATOR_KEY'] },
      'needsSpec.secrets',
      'an object of secret name → JSON Schema or Zod schema, got a list',
    ],
    [{ secrets: { KEY: 'string' } }, 'needsSpec.secrets.KEY', 'a JSON Schema object or a Zod schema, got "string"'],
    [{ secrets: { KEY: undefined } }, 'needsSpec.secrets.KEY', 'a JSON Schema object or a Zod schema, got nothing'],
  ])('refuses a malformed declaration (%#)', (needsSpec, field, problem) => {
    const error = failure(() => defineTool({ ...base, needsSpec, handler: () => 1 } as never));
    expect(error.field).toBe(field);
    expect(error.message).toBe(`defineTool: "${field}" must be ${problem}`);
  });

  it('still refuses a needsSpec that is not an object', () => {
    const error = failure(() => defineTool({ ...base, needsSpec: 'secrets' as never, handler: () => 1 }));
    expect(error).toMatchObject({
      field: 'needsSpec',
      message: 'defineTool: "needsSpec" must be an object, got "secrets"',
    });
  });
});

describe('needsSpec.secrets through the handler runner', () => {
  it('hands the handler the secret it declares, typed and not enumerable on ctx', async () => {
    const tool = defineTool({
      ...base,
      needsSpec: { secrets: { CITATOR_KEY: z.string().min(20) } },
      handler: (_input, ctx) => ({ length: ctx.secrets.CITATOR_KEY.length, shown: Object.keys(ctx) }),
    });
    const outcome = await runHandler({
      tool: { id: tool.id, modulePath: 'virtual:verify', inputSchema: { type: 'object' }, outputSchema: {} },
      input: {},
      ctx: { tenantId: 't-1', runId: 'r-1', secrets: { CITATOR_KEY: 'k'.repeat(24) } },
      importHandler: async () => ({ default: tool }),
    });
    expect(outcome.kind).toBe('ok');
    const value = (outcome as { value: { length: number; shown: string[] } }).value;
    expect(value.length).toBe(24);
    expect(value.shown).not.toContain('secrets');
  });
});
