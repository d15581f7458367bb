import { HANDLER_ERROR_CODES } from '@kindgi/protocol';
import { describe, expect, it } from 'vitest';
import { type RunnableTool, runHandler } from '../src/index.js';
import { CTX, fixture, openTool } from './helpers.js';

const strictTool = (modulePath: string): RunnableTool => ({
  id: 'acme.pay',
  modulePath,
  inputSchema: {
    type: 'object',
    properties: { amountCents: { type: 'integer', minimum: 0 } },
    required: ['amountCents'],
    additionalProperties: false,
  },
  outputSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
});

function virtual(handler: unknown): () => Promise<unknown> {
  return async () => ({ handler });
}

describe('runHandler errors', () => {
  it('input-validation-failed: issues in Ajv shape, before the module is imported', async () => {
    let imported = false;
    const outcome = await runHandler({
      tool: strictTool('virtual:pay'),
      input: {},
      ctx: CTX,
      importHandler: () => {
        imported = true;
        return { handler: () => ({ ok: true }) };
      },
    });
    expect(imported).toBe(false);
    expect(outcome).toEqual({
      kind: 'err',
      error: {
        code: 'input-validation-failed',
        message: 'Tool "acme.pay" input failed validation',
        toolId: 'acme.pay',
        issues: [
          {
            instancePath: '',
            schemaPath: '#/required',
            keyword: 'required',
            params: { missingProperty: 'amountCents' },
            message: "must have required property 'amountCents'",
          },
        ],
      },
    });
  });

  it('input-validation-failed: reports every issue (allErrors)', async () => {
    const outcome = await runHandler({
      tool: strictTool('virtual:pay'),
      input: { amountCents: -1, extra: 1 },
      ctx: CTX,
    });
    expect(outcome.kind).toBe('err');
    if (outcome.kind !== 'err') return;
    expect(outcome.error.issues?.map((issue) => issue.keyword).sort()).toEqual(['additionalProperties', 'minimum']);
    expect(outcome.error.issues?.find((issue) => issue.keyword === 'additionalProperties')?.params).toEqual({
      additionalProperty: 'extra',
    });
  });

  it('input-validation-failed: an input schema that will not compile', async () => {
    const tool = { ...strictTool('virtual:pay'), inputSchema: { type: 'object', properties: { a: { type: 'nope' } } } };
    const outcome = await runHandler({ tool, input: {}, ctx: CTX });
    expect(outcome.kind === 'err' && outcome.error.code).toBe('input-validation-failed');
    expect(outcome.kind === 'err' && outcome.error.message).toMatch(
      /^Tool "acme\.pay" input schema failed to compile: .+/,
    );
  });

  it('input-validation-failed: an input that cannot be copied (a function in it)', async () => {
    const outcome = await runHandler({ tool: openTool('virtual:x'), input: { fn: () => 1 }, ctx: CTX });
    expect(outcome.kind === 'err' && outcome.error.code).toBe('input-validation-failed');
    expect(outcome.kind === 'err' && outcome.error.issues?.[0]?.message).toMatch(/^must be JSON data/);
  });

  it('output-validation-failed: an output schema that will not compile fails before the handler runs', async () => {
    let called = false;
    const tool = { ...strictTool('virtual:pay'), outputSchema: { type: 'object', minProperties: 'two' } };
    const outcome = await runHandler({
      tool,
      input: { amountCents: 1 },
      ctx: CTX,
      importHandler: virtual(() => {
        called = true;
        return { ok: true };
      }),
    });
    expect(called).toBe(false);
    expect(outcome.kind === 'err' && outcome.error.code).toBe('output-validation-failed');
    expect(outcome.kind === 'err' && outcome.error.message).toMatch(
      /^Tool "acme\.pay" output schema failed to compile: /,
    );
  });

  it('output-validation-failed: the output breaks its schema', async () => {
    const outcome = await runHandler({
      tool: strictTool('virtual:pay'),
      input: { amountCents: 1 },
      ctx: CTX,
      importHandler: virtual(() => ({ ok: 'yes' })),
    });
    expect(outcome).toEqual({
      kind: 'err',
      error: {
        code: 'output-validation-failed',
        message: 'Tool "acme.pay" handler produced output that failed validation',
        toolId: 'acme.pay',
        issues: [
          {
            instancePath: '/ok',
            schemaPath: '#/properties/ok/type',
            keyword: 'type',
            params: { type: 'boolean' },
            message: 'must be boolean',
          },
        ],
      },
    });
  });

  it('handler-import-failed: the module throws while loading', async () => {
    const modulePath = fixture('import-throws.mjs');
    const outcome = await runHandler({ tool: openTool(modulePath), input: {}, ctx: CTX });
    expect(outcome.kind).toBe('err');
    if (outcome.kind !== 'err') return;
    expect(outcome.error).toMatchObject({
      code: 'handler-import-failed',
      message: `Failed to import handler module '${modulePath}': TypeError: cannot start without CONFIG`,
      toolId: 'fixtures.tool',
      cause: { name: 'TypeError', message: 'cannot start without CONFIG' },
    });
    expect((outcome.error.cause as { stack?: string }).stack).toContain('import-throws.mjs');
  });

  it('handler-import-failed: the module does not exist', async () => {
    const modulePath = fixture('missing-module.mjs');
    const outcome = await runHandler({ tool: openTool(modulePath), input: {}, ctx: CTX });
    expect(outcome.kind === 'err' && outcome.error.code).toBe('handler-import-failed');
    expect(outcome.kind === 'err' && outcome.error.message).toMatch(
      new RegExp(`^Failed to import handler module '${modulePath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}': Error: `),
    );
  });

  it('handler-import-failed: a custom importer that throws synchronously', async () => {
    const outcome = await runHandler({
      tool: openTool('virtual:sync-throw'),
      input: {},
      ctx: CTX,
      importHandler: () => {
        throw new Error('no such bundle');
      },
    });
    expect(outcome.kind === 'err' && outcome.error.message).toBe(
      "Failed to import handler module 'virtual:sync-throw': Error: no such bundle",
    );
  });

  it('handler-shape-invalid: nothing callable', async () => {
    const modulePath = fixture('no-handler.mjs');
    const outcome = await runHandler({ tool: openTool(modulePath), input: {}, ctx: CTX });
    expect(outcome.kind === 'err' && outcome.error).toEqual({
      code: 'handler-shape-invalid',
      message:
        `Module '${modulePath}' has no handler for tool "fixtures.tool": export a function, ` +
        'or `default`, `handler` or `run` as a function or as a definition holding `handler` or `run`',
      toolId: 'fixtures.tool',
    });
  });

  it('handler-shape-invalid: a module that is a primitive, or whose getters throw', async () => {
    const primitive = await runHandler({ tool: openTool('virtual:p'), input: {}, ctx: CTX, importHandler: () => 42 });
    expect(primitive.kind === 'err' && primitive.error.code).toBe('handler-shape-invalid');
    const hostile = {
      get default(): unknown {
        throw new Error('getter');
      },
    };
    const trap = await runHandler({ tool: openTool('virtual:g'), input: {}, ctx: CTX, importHandler: () => hostile });
    expect(trap.kind === 'err' && trap.error.code).toBe('handler-shape-invalid');
  });

  it('handler-throw: an Error, with its cause', async () => {
    const outcome = await runHandler({
      tool: openTool('virtual:throw'),
      input: {},
      ctx: CTX,
      importHandler: virtual(() => {
        throw new RangeError('boom');
      }),
    });
    expect(outcome.kind === 'err' && outcome.error).toMatchObject({
      code: 'handler-throw',
      message: 'Handler for tool "fixtures.tool" threw: RangeError: boom',
      toolId: 'fixtures.tool',
      cause: { name: 'RangeError', message: 'boom' },
    });
  });

  it.each([
    ['a string', 'plain text', 'plain text', 'plain text'],
    ['a number', 7, '7', 7],
    ['undefined', undefined, 'undefined', null],
    ['null', null, 'null', null],
    ['an object', { code: 'E1' }, '{"code":"E1"}', { code: 'E1' }],
    ['a BigInt', 10n, '10', '10'],
  ])('handler-throw: throwing %s', async (_label, thrown, described, cause) => {
    const outcome = await runHandler({
      tool: openTool('virtual:throw-value'),
      input: {},
      ctx: CTX,
      importHandler: virtual(() => {
        throw thrown;
      }),
    });
    expect(outcome).toEqual({
      kind: 'err',
      error: {
        code: 'handler-throw',
        message: `Handler for tool "fixtures.tool" threw: ${described}`,
        toolId: 'fixtures.tool',
        cause,
      },
    });
  });

  it('handler-throw: a rejected promise', async () => {
    const outcome = await runHandler({
      tool: openTool('virtual:reject'),
      input: {},
      ctx: CTX,
      importHandler: virtual(() => Promise.reject(new Error('async boom'))),
    });
    expect(outcome.kind === 'err' && outcome.error.message).toBe(
      'Handler for tool "fixtures.tool" threw: Error: async boom',
    );
  });

  it('handler-throw: a thrown value that cannot even be printed', async () => {
    const unprintable = new Proxy(
      {},
      {
        get() {
          throw new Error('trap');
        },
        ownKeys() {
          throw new Error('trap');
        },
      },
    );
    const outcome = await runHandler({
      tool: openTool('virtual:unprintable'),
      input: {},
      ctx: CTX,
      importHandler: virtual(() => {
        throw unprintable;
      }),
    });
    expect(outcome.kind === 'err' && outcome.error.code).toBe('handler-throw');
    expect(outcome.kind === 'err' && outcome.error.message).toBe(
      'Handler for tool "fixtures.tool" threw: a value that cannot be printed',
    );
  });

  it('produces only the handler codes the protocol defines', async () => {
    expect(HANDLER_ERROR_CODES).toEqual([
      'input-validation-failed',
      'output-validation-failed',
      'handler-import-failed',
      'handler-shape-invalid',
      'handler-throw',
      'check-shape-invalid',
    ]);
  });
});
