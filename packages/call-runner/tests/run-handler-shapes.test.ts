import { describe, expect, it } from 'vitest';
import { runHandler } from '../src/index.js';
import { CTX, fixture, openTool } from './helpers.js';

describe('runHandler resolves every handler export shape', () => {
  it.each([
    ['default-function.mjs', 'default-function'],
    ['named-handler.mjs', 'named-handler'],
    ['named-run.mjs', 'named-run'],
    ['definition-default.mjs', 'definition-default'],
    ['definition-run.mjs', 'definition-run'],
  ])('%s', async (file, shape) => {
    const outcome = await runHandler({ tool: openTool(fixture(file)), input: { q: 1 }, ctx: CTX });
    expect(outcome).toEqual({ kind: 'ok', value: { shape, input: { q: 1 } } });
  });

  it('accepts a module that is itself a function (custom importer)', async () => {
    const outcome = await runHandler({
      tool: openTool('virtual:bare-function'),
      input: { a: 1 },
      ctx: CTX,
      importHandler: () => (input: unknown) => ({ got: input }),
    });
    expect(outcome).toEqual({ kind: 'ok', value: { got: { a: 1 } } });
  });

  it('prefers default over handler over run when several are functions', async () => {
    const outcome = await runHandler({
      tool: openTool('virtual:several'),
      input: {},
      ctx: CTX,
      importHandler: async () => ({ run: () => 'run', handler: () => 'handler', default: () => 'default' }),
    });
    expect(outcome).toEqual({ kind: 'ok', value: 'default' });
  });

  it('prefers a bare function export over a definition holding one', async () => {
    const outcome = await runHandler({
      tool: openTool('virtual:mixed'),
      input: {},
      ctx: CTX,
      importHandler: async () => ({ default: { handler: () => 'definition' }, run: () => 'bare run' }),
    });
    expect(outcome).toEqual({ kind: 'ok', value: 'bare run' });
  });

  it('awaits a handler that returns a promise', async () => {
    const outcome = await runHandler({
      tool: openTool('virtual:async'),
      input: {},
      ctx: CTX,
      importHandler: async () => ({ handler: () => Promise.resolve({ later: true }) }),
    });
    expect(outcome).toEqual({ kind: 'ok', value: { later: true } });
  });
});
