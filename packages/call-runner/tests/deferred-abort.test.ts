import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createHandlerContext, DeferredAbortSignal, runHandler } from '../src/index.js';
import { fixture, openTool } from './helpers.js';

describe('a deferred abort signal', () => {
  it('makes its signal on first read and keeps it', () => {
    const deferred = new DeferredAbortSignal();
    expect(deferred.materialised).toBe(false);
    const signal = deferred.signal;
    expect(signal).toBeInstanceOf(AbortSignal);
    expect(deferred.signal).toBe(signal);
    expect(deferred.materialised).toBe(true);
    expect(signal.aborted).toBe(false);
  });

  it('fires a signal already read, once, with the first reason', () => {
    const deferred = new DeferredAbortSignal();
    const reasons: unknown[] = [];
    deferred.signal.addEventListener('abort', () => reasons.push(deferred.signal.reason));
    const first = new DOMException('late', 'TimeoutError');
    deferred.abort(first);
    deferred.abort(new Error('second'));
    expect(reasons).toEqual([first]);
    expect(deferred.aborted).toBe(true);
  });

  it('hands out an aborted signal with the reason when aborted before anything read it', () => {
    const deferred = new DeferredAbortSignal();
    const reason = new DOMException('gone', 'AbortError');
    deferred.abort(reason);
    expect(deferred.materialised).toBe(false);
    expect(deferred.signal.aborted).toBe(true);
    expect(deferred.signal.reason).toBe(reason);
    expect(() => deferred.signal.throwIfAborted()).toThrow(reason);
  });
});

describe('a handler context over a deferred signal', () => {
  const wire = { tenantId: 't', runId: 'r', custom: { a: 1 }, secrets: { K: 'v' } };

  it('looks like a context with a plain abortSignal: keys, order, spread, JSON, printing', () => {
    const deferred = new DeferredAbortSignal();
    const ctx = createHandlerContext(wire, { abortSignal: deferred });
    expect(deferred.materialised).toBe(false);
    expect(Object.keys(ctx)).toEqual(['tenantId', 'runId', 'custom', 'abortSignal']);
    expect(JSON.parse(JSON.stringify(ctx))).toEqual({ tenantId: 't', runId: 'r', custom: { a: 1 }, abortSignal: {} });
    expect(deferred.materialised).toBe(true);
    expect({ ...ctx }.abortSignal).toBe(deferred.signal);
    expect(Object.getOwnPropertyDescriptor(ctx, 'abortSignal')).toEqual({
      value: deferred.signal,
      writable: true,
      enumerable: true,
      configurable: true,
    });
    const printed = inspect(createHandlerContext(wire, { abortSignal: new DeferredAbortSignal() }));
    expect(printed).toContain('abortSignal: AbortSignal { aborted: false }');
    expect(printed).not.toContain("'v'");
  });

  it('lets a handler replace ctx.abortSignal before reading it, as with a data property', () => {
    const ctx = createHandlerContext(wire, { abortSignal: new DeferredAbortSignal() }) as { abortSignal: unknown };
    const replacement = new AbortController().signal;
    ctx.abortSignal = replacement;
    expect(ctx.abortSignal).toBe(replacement);
    expect(Object.keys(ctx)).toEqual(['tenantId', 'runId', 'custom', 'abortSignal']);
  });

  it('delivers an abort to a handler that reads its signal, whether it reads before or after', async () => {
    const before = new DeferredAbortSignal();
    before.abort('gone');
    expect(
      await runHandler({
        tool: openTool(fixture('wait-for-abort.mjs')),
        input: {},
        ctx: { tenantId: 't', runId: 'r' },
        abortSignal: before,
      }),
    ).toEqual({ kind: 'ok', value: { aborted: true, reason: 'gone' } });

    const during = new DeferredAbortSignal();
    const running = runHandler({
      tool: openTool(fixture('wait-for-abort.mjs')),
      input: {},
      ctx: { tenantId: 't', runId: 'r' },
      abortSignal: during,
    });
    during.abort(new Error('deadline'));
    expect(await running).toEqual({ kind: 'ok', value: { aborted: true, reason: 'Error: deadline' } });
  });

  it('never makes the signal for a handler that does not read it', async () => {
    const deferred = new DeferredAbortSignal();
    const outcome = await runHandler({
      tool: openTool(`data:text/javascript,${encodeURIComponent('export default (input) => input;')}`),
      input: { x: 1 },
      ctx: { tenantId: 't', runId: 'r' },
      abortSignal: deferred,
    });
    expect(outcome).toEqual({ kind: 'ok', value: { x: 1 } });
    expect(deferred.materialised).toBe(false);
  });
});
