import { describe, expect, it } from 'vitest';
import { type RunnableTool, runHandler } from '../src/index.js';
import { CTX, fixture } from './helpers.js';

const withDefaults: RunnableTool = {
  id: 'acme.search',
  modulePath: 'virtual:search',
  inputSchema: {
    type: 'object',
    properties: {
      q: { type: 'string' },
      limit: { type: 'integer', default: 10 },
      filters: {
        type: 'object',
        properties: {
          lang: { type: 'string', default: 'en' },
          range: { type: 'object', properties: { days: { type: 'integer', default: 30 } }, default: {} },
        },
        default: {},
      },
      tags: { type: 'array', items: { type: 'object', properties: { weight: { type: 'number', default: 1 } } } },
    },
    required: ['q'],
  },
  outputSchema: { type: 'object' },
};

const echo = async () => ({ handler: (input: unknown) => ({ received: input }) });

describe('runHandler input defaults', () => {
  it('fills defaults into a copy, nested ones too, and never touches the caller input', async () => {
    const input = { q: 'backpay', filters: { range: {} }, tags: [{ name: 'a' }] };
    const before = structuredClone(input);
    const outcome = await runHandler({ tool: withDefaults, input, ctx: CTX, importHandler: echo });
    expect(outcome).toEqual({
      kind: 'ok',
      value: {
        received: {
          q: 'backpay',
          limit: 10,
          filters: { lang: 'en', range: { days: 30 } },
          tags: [{ name: 'a', weight: 1 }],
        },
      },
    });
    expect(input).toEqual(before);
  });

  it('fills a default object and then its own defaults', async () => {
    const outcome = await runHandler({ tool: withDefaults, input: { q: 'x' }, ctx: CTX, importHandler: echo });
    expect(outcome.kind === 'ok' && outcome.value).toEqual({
      received: { q: 'x', limit: 10, filters: { lang: 'en', range: { days: 30 } } },
    });
  });

  it('keeps values the caller gave', async () => {
    const input = { q: 'x', limit: 3, filters: { lang: 'de', range: { days: 1 } } };
    const outcome = await runHandler({ tool: withDefaults, input, ctx: CTX, importHandler: echo });
    expect(outcome.kind === 'ok' && outcome.value).toEqual({ received: input });
  });

  it('keeps a JSON "__proto__" key as data, so validation sees it and nothing is inherited', async () => {
    const input = JSON.parse('{"q":"x","__proto__":{"isAdmin":true}}');
    const tool = { ...withDefaults, inputSchema: { type: 'object', additionalProperties: { type: 'string' } } };
    const outcome = await runHandler({ tool, input, ctx: CTX, importHandler: echo });
    expect(outcome.kind === 'err' && outcome.error.issues?.[0]?.instancePath).toBe('/__proto__');
    const open = await runHandler({
      tool: { ...withDefaults, inputSchema: { type: 'object' } },
      input,
      ctx: CTX,
      importHandler: async () => ({ handler: (value: { isAdmin?: unknown }) => ({ isAdmin: value.isAdmin ?? null }) }),
    });
    expect(open).toEqual({ kind: 'ok', value: { isAdmin: null } });
  });

  it('copies non-JSON inputs of in-process callers with structuredClone semantics', async () => {
    const when = new Date('2026-01-02T03:04:05Z');
    const cyclic: Record<string, unknown> = { q: 'x', when };
    cyclic.self = cyclic;
    const outcome = await runHandler({
      tool: { ...withDefaults, inputSchema: { type: 'object' } },
      input: cyclic,
      ctx: CTX,
      importHandler: async () => ({
        handler: (input: Record<string, unknown>) => ({
          isCopy: input !== cyclic,
          cycleKept: input.self === input,
          date: input.when instanceof Date && input.when !== when,
        }),
      }),
    });
    expect(outcome).toEqual({ kind: 'ok', value: { isCopy: true, cycleKept: true, date: true } });
  });
});

describe('runHandler with Zod', () => {
  const zodTool = (file: string, inputSchema: unknown): RunnableTool => ({
    id: 'fixtures.zod',
    modulePath: fixture(file),
    inputSchema,
    outputSchema: { type: 'object' },
  });

  it("passes a definition's inputZod transforms on to the handler", async () => {
    const tool = zodTool('zod-definition.mjs', {
      type: 'object',
      properties: { amount: { type: 'string' }, note: { type: 'string', default: 'n/a' } },
    });
    const outcome = await runHandler({ tool, input: { amount: '42' }, ctx: CTX });
    // The JSON Schema default reaches the Zod parse, and the transform reaches the handler.
    expect(outcome).toEqual({ kind: 'ok', value: { amount: 42, amountType: 'number', note: 'n/a' } });
  });

  it('reports a Zod failure as input-validation-failed with {instancePath, message} issues', async () => {
    const tool = zodTool('zod-definition.mjs', { type: 'object' });
    const outcome = await runHandler({ tool, input: { amount: '1', note: 'x' }, ctx: CTX });
    expect(outcome.kind === 'err' && outcome.error).toEqual({
      code: 'input-validation-failed',
      message: 'Tool "fixtures.zod" input failed validation',
      toolId: 'fixtures.zod',
      issues: [{ instancePath: '/note', message: expect.stringMatching(/3/) }],
    });
  });

  it('uses a module-level inputZod export', async () => {
    const tool = zodTool('zod-module.mjs', { type: 'object' });
    const outcome = await runHandler({ tool, input: { tags: ['a', 'b', 'a'] }, ctx: CTX });
    expect(outcome).toEqual({ kind: 'ok', value: { distinct: 2 } });
  });

  it('runs the JSON Schema check first: a Zod schema never sees input the JSON Schema refused', async () => {
    const tool = zodTool('zod-definition.mjs', {
      type: 'object',
      properties: { amount: { type: 'string' } },
      required: ['amount'],
    });
    const outcome = await runHandler({ tool, input: {}, ctx: CTX });
    expect(outcome.kind === 'err' && outcome.error.issues?.[0]?.keyword).toBe('required');
  });

  it('reports a Zod schema whose transform throws as handler-throw', async () => {
    const inputZod = {
      safeParseAsync: async () => {
        throw new Error('transform exploded');
      },
    };
    const outcome = await runHandler({
      tool: zodTool('virtual', { type: 'object' }),
      input: {},
      ctx: CTX,
      importHandler: async () => ({ default: { inputZod, handler: () => ({}) } }),
    });
    expect(outcome.kind === 'err' && outcome.error.message).toBe(
      'The inputZod schema of tool "fixtures.zod" threw: Error: transform exploded',
    );
    expect(outcome.kind === 'err' && outcome.error.code).toBe('handler-throw');
  });
});
