// Type-level tests: `expectTypeOf` is checked by `tsc --noEmit` (the package typecheck covers tests/);
// at run time the assertions are no-ops, and the definitions below must still be valid.
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  defineGuardrail,
  defineTool,
  type JsonObject,
  type RunTrace,
  type ToolContext,
  type ToolDefinition,
} from '../src/index.js';

describe('defineTool typing', () => {
  it('infers the handler input from a Zod `input` (its output type, after defaults and transforms)', () => {
    const tool = defineTool({
      id: 'acme.lookup',
      description: 'Looks a case up.',
      input: z.object({
        q: z.string(),
        limit: z.number().int().default(10),
        since: z.string().transform((text) => new Date(text)),
      }),
      output: z.object({ hits: z.array(z.string()) }),
      handler: async (input, ctx) => {
        expectTypeOf(input).toEqualTypeOf<{ q: string; limit: number; since: Date }>();
        expectTypeOf(ctx).toEqualTypeOf<ToolContext>();
        return { hits: [input.q] };
      },
    });
    expectTypeOf(tool).toEqualTypeOf<ToolDefinition<{ q: string; limit: number; since: Date }, { hits: string[] }>>();
  });

  it('infers from `inputZod` given directly', () => {
    defineTool({
      id: 'acme.count',
      description: 'Counts.',
      inputZod: z.object({ n: z.coerce.number() }),
      handler: (input) => {
        expectTypeOf(input).toEqualTypeOf<{ n: number }>();
        return input.n;
      },
    });
  });

  it('types ctx fully', () => {
    defineTool({
      id: 'acme.ctx',
      description: 'Reads its context.',
      input: z.object({}),
      handler: (_input, ctx) => {
        expectTypeOf(ctx.tenantId).toEqualTypeOf<string>();
        expectTypeOf(ctx.runId).toEqualTypeOf<string>();
        expectTypeOf(ctx.requestId).toEqualTypeOf<string | undefined>();
        expectTypeOf(ctx.projectId).toEqualTypeOf<string | null | undefined>();
        expectTypeOf(ctx.orgId).toEqualTypeOf<string | null | undefined>();
        expectTypeOf(ctx.abortSignal).toEqualTypeOf<AbortSignal>();
        expectTypeOf(ctx.secrets).toEqualTypeOf<Readonly<Record<string, unknown>>>();
        expectTypeOf(ctx.log.info).parameters.toEqualTypeOf<[string, Record<string, unknown>?]>();
        return {};
      },
    });
  });

  it('gives a JSON-Schema tool a JSON object input', () => {
    const tool = defineTool({
      id: 'acme.plain',
      description: 'Plain JSON Schema.',
      input: { type: 'object', properties: { a: { type: 'string' } } },
      output: { type: 'object' },
      handler: (input) => {
        expectTypeOf(input).toEqualTypeOf<JsonObject>();
        return { a: input.a };
      },
    });
    expectTypeOf(tool.handler).parameter(0).toEqualTypeOf<JsonObject>();
  });

  it('lets a JSON-Schema tool annotate its input with its own type', () => {
    const tool = defineTool({
      id: 'acme.typed-json',
      description: 'Annotated input.',
      input: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
      handler: (input: { a: string }) => input.a.length,
    });
    expectTypeOf(tool.handler).returns.toEqualTypeOf<unknown>();
  });

  it('checks the handler result against a Zod output', () => {
    defineTool({
      id: 'acme.out',
      description: 'Typed output.',
      input: z.object({}),
      output: z.object({ ok: z.boolean() }),
      // @ts-expect-error: `ok` must be a boolean.
      handler: () => ({ ok: 'yes' }),
    });
  });
});

describe('defineGuardrail typing', () => {
  it('lets a JSON-Schema guardrail annotate its config', () => {
    defineGuardrail({
      id: 'acme.typed-config',
      action: 'halt',
      configSchema: { type: 'object', properties: { min: { type: 'integer' } } },
      check: { evaluate: (config: { min?: number }) => ({ passed: (config.min ?? 0) >= 0 }) },
    });
  });

  it('types evaluate from a Zod config schema (its input side: config arrives as sent)', () => {
    defineGuardrail({
      id: 'acme.min-length',
      action: 'halt',
      configSchema: z.object({ minLength: z.number().int().min(0).default(1) }),
      evaluate: (config, trace, bindings) => {
        expectTypeOf(config).toEqualTypeOf<{ minLength?: number | undefined }>();
        expectTypeOf(trace).toEqualTypeOf<RunTrace>();
        expectTypeOf(bindings.abortSignal).toEqualTypeOf<AbortSignal>();
        return { passed: String(trace.output ?? '').length >= (config.minLength ?? 1) };
      },
    });
  });
});
