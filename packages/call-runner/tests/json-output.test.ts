import { MAX_JSON_DEPTH } from '@kindgi/protocol';
import { describe, expect, it } from 'vitest';
import { runHandler } from '../src/index.js';
import { CTX, openTool } from './helpers.js';

function returning(value: unknown) {
  return async () => ({ handler: () => value });
}

async function outputOf(value: unknown) {
  return runHandler({
    tool: openTool('virtual:out', 'acme.out'),
    input: {},
    ctx: CTX,
    importHandler: returning(value),
  });
}

describe('runHandler output JSON cannot carry', () => {
  const cycle: Record<string, unknown> = { a: 1 };
  cycle.self = cycle;

  it.each([
    ['undefined', undefined, '', 'undefined (return null for no value)'],
    ['a BigInt', { total: 10n }, '/total', 'a BigInt'],
    ['a cycle', { nested: cycle }, '/nested/self', 'a circular reference'],
    ['NaN', { items: [1, Number.NaN] }, '/items/1', 'the number NaN'],
    ['a function', { fn: () => 1 }, '/fn', 'a function'],
    ['a symbol', [Symbol('s')], '/0', 'a symbol'],
  ])('%s is output-validation-failed, not a crash', async (_label, value, path, reason) => {
    const outcome = await outputOf(value);
    const where = path === '' ? '' : ` at ${path}`;
    expect(outcome).toEqual({
      kind: 'err',
      error: {
        code: 'output-validation-failed',
        message: `Tool "acme.out" handler produced output that JSON cannot carry${where}: ${reason}`,
        toolId: 'acme.out',
        issues: [{ instancePath: path, message: `must be a JSON value, got ${reason}` }],
      },
    });
  });

  it('returns plain JSON output as it is, leaving out undefined members', async () => {
    const value = { a: [1, 'x', null, true], b: { c: undefined } };
    const outcome = await outputOf(value);
    expect(outcome.kind === 'ok' && outcome.value).toBe(value);
  });

  it('validates and returns the JSON form of a Date or class instance', async () => {
    class Money {
      constructor(readonly cents: number) {}
    }
    const outcome = await runHandler({
      tool: {
        id: 'acme.out',
        modulePath: 'virtual:dates',
        inputSchema: { type: 'object' },
        outputSchema: {
          type: 'object',
          properties: { at: { type: 'string', format: 'date-time' }, price: { type: 'object' } },
        },
      },
      input: {},
      ctx: CTX,
      importHandler: returning({ at: new Date('2026-01-02T03:04:05.000Z'), price: new Money(5) }),
    });
    expect(outcome).toEqual({ kind: 'ok', value: { at: '2026-01-02T03:04:05.000Z', price: { cents: 5 } } });
  });

  it('accepts deeply nested plain data, and finds a cycle or a BigInt below the fast walk depth', async () => {
    const nest = (depth: number, leaf: unknown): unknown => (depth === 0 ? leaf : { next: nest(depth - 1, leaf) });
    const deep = nest(200, 'leaf');
    const fine = await outputOf(deep);
    expect(fine.kind === 'ok' && fine.value).toBe(deep);
    const bigint = await outputOf(nest(100, 1n));
    expect(bigint.kind === 'err' && bigint.error.issues?.[0]?.instancePath).toBe('/next'.repeat(100));
    const ring: Record<string, unknown> = {};
    const cyclic = nest(80, ring) as Record<string, unknown>;
    ring.back = cyclic;
    const cycle = await outputOf(cyclic);
    expect(cycle.kind === 'err' && cycle.error.message).toBe(
      `Tool "acme.out" handler produced output that JSON cannot carry at ${'/next'.repeat(80)}/back: a circular reference`,
    );
    const tooDeep = await outputOf(nest(MAX_JSON_DEPTH + 1, 1));
    expect(tooDeep.kind === 'err' && tooDeep.error.message).toMatch(
      new RegExp(`nesting deeper than ${MAX_JSON_DEPTH}$`),
    );
    const deepest = nest(MAX_JSON_DEPTH, 1);
    expect((await outputOf(deepest)).kind).toBe('ok');
  });

  it('reports a toJSON that throws', async () => {
    const outcome = await outputOf({
      toJSON() {
        throw new Error('nope');
      },
    });
    expect(outcome.kind === 'err' && outcome.error.message).toBe(
      'Tool "acme.out" handler produced output that JSON cannot carry: a value JSON cannot serialise (Error: nope)',
    );
  });
});
