import { describe, expect, it } from 'vitest';
import { importModuleOnce, resolveCheckEvaluator, resolveToolHandler, runHandler } from '../src/index.js';
import { CTX, openTool } from './helpers.js';

describe('resolveToolHandler / resolveCheckEvaluator (boot-time shape checks)', () => {
  it('finds a handler and the definition it is called on, with its inputZod', () => {
    const inputZod = { safeParseAsync: async (value: unknown) => ({ success: true as const, data: value }) };
    const definition = { id: 'acme.x', inputZod, handler: () => 1 };
    const resolved = resolveToolHandler({ default: definition });
    expect(resolved?.handler).toBe(definition.handler);
    expect(resolved?.thisArg).toBe(definition);
    expect(resolved?.inputZod).toBe(inputZod);
  });

  it.each([
    ['undefined', undefined],
    ['a string', 'module'],
    ['an empty namespace', {}],
    ['non-function exports', { default: { handler: 'x' }, run: 1 }],
  ])('returns undefined for %s, never throwing', (_label, value) => {
    expect(resolveToolHandler(value)).toBeUndefined();
    expect(resolveCheckEvaluator(value)).toBeUndefined();
  });

  it('finds an evaluator in each accepted place', () => {
    const evaluate = () => ({ passed: true });
    expect(resolveCheckEvaluator({ evaluate })?.evaluate).toBe(evaluate);
    expect(resolveCheckEvaluator({ default: { evaluate } })?.evaluate).toBe(evaluate);
    expect(resolveCheckEvaluator({ default: { id: 'g', check: { evaluate } } })?.evaluate).toBe(evaluate);
    expect(resolveCheckEvaluator({ check: evaluate })?.evaluate).toBe(evaluate);
    expect(resolveCheckEvaluator(evaluate)?.evaluate).toBe(evaluate);
  });
});

describe('importModuleOnce (prewarm)', () => {
  it('fills the cache runHandler uses, so the first call imports nothing', async () => {
    let imports = 0;
    const importer = () => {
      imports += 1;
      return { handler: () => 'warm' };
    };
    const prewarmed = await importModuleOnce('virtual:prewarm', importer);
    expect(prewarmed.kind).toBe('ok');
    const outcome = await runHandler({
      tool: openTool('virtual:prewarm'),
      input: {},
      ctx: CTX,
      importHandler: importer,
    });
    expect(outcome).toEqual({ kind: 'ok', value: 'warm' });
    expect(imports).toBe(1);
  });

  it('reports a failed import with its description and the thrown value', async () => {
    const thrown = new SyntaxError('Unexpected token');
    const outcome = await importModuleOnce('virtual:broken', () => Promise.reject(thrown));
    expect(outcome).toEqual({ kind: 'err', error: { thrown, description: 'SyntaxError: Unexpected token' } });
  });
});
