import type { PackResponse, PackTransportError } from '@kindgi/protocol';
import { describe, expect, it } from 'vitest';
import {
  composePackCall,
  didNotRun,
  type PackCall,
  type PackCaller,
  type PackReply,
  retryLayer,
} from '../src/index.js';

const ctx = { tenantId: 't', runId: 'r' };
const RESULT: PackReply = { kind: 'ok', value: { v: 2, kind: 'result', output: 'ran' } as PackResponse };
const BUSY: PackTransportError = { code: 'pack-unavailable', message: 'draining', status: 503, retryAfterMs: 1 };

/**
 * A transport answering `replies` in turn (the last one again once they run out), on a clock that each
 * call moves on by `stepMs`, so how many tries fit a budget does not depend on the machine's speed.
 */
function scripted(replies: PackReply[], stepMs = 0) {
  let clock = 0;
  const calls: PackCall[] = [];
  const transport: PackCaller = async (call) => {
    calls.push(call);
    clock += stepMs;
    return replies[Math.min(calls.length - 1, replies.length - 1)] as PackReply;
  };
  return { transport, calls, now: () => clock };
}

const invoke = (deadlineMs?: number): PackCall => ({
  kind: 'invoke',
  tool: { id: 'x' },
  input: {},
  ctx,
  ...(deadlineMs === undefined ? {} : { deadlineMs }),
});

describe('retryLayer', () => {
  it("retries a live service's 503 after its Retry-After until it answers, each try with the deadline left", async () => {
    const { transport, calls, now } = scripted(
      [{ kind: 'err', error: BUSY }, { kind: 'err', error: BUSY }, RESULT],
      40,
    );
    const retried: string[] = [];
    const callPack = composePackCall(retryLayer({ budgetMs: 1_000, now, onRetry: (_call, e) => retried.push(e.code) }))(
      transport,
    );
    expect(await callPack(invoke(500))).toEqual(RESULT);
    expect(calls.map((call) => call.deadlineMs)).toEqual([500, 460, 420]);
    expect(retried).toEqual(['pack-unavailable', 'pack-unavailable']);
  });

  it('stops retrying when the next wait would pass the budget, answering the last refusal', async () => {
    const { transport, calls, now } = scripted([{ kind: 'err', error: BUSY }], 40);
    const callPack = composePackCall(retryLayer({ budgetMs: 100, now }))(transport);
    expect(await callPack(invoke(10_000))).toEqual({ kind: 'err', error: BUSY });
    // Tries at 0, 40 and 80 ms of the clock; after the third, 120 ms + 1 ms of Retry-After is past 100 ms.
    expect(calls).toHaveLength(3);
  });

  it('never waits past the deadline, even with budget left', async () => {
    const { transport, calls, now } = scripted([{ kind: 'err', error: BUSY }], 40);
    const callPack = composePackCall(retryLayer({ budgetMs: 60_000, now }))(transport);
    await callPack(invoke(50));
    expect(calls).toHaveLength(2);
  });

  it('answers a refused connection (no service answered: no status) at once, with its Retry-After', async () => {
    const refused: PackTransportError = { code: 'pack-unavailable', message: 'ECONNREFUSED', retryAfterMs: 1_000 };
    const { transport, calls } = scripted([{ kind: 'err', error: refused }, RESULT]);
    const reply = await composePackCall(retryLayer({ budgetMs: 60_000 }))(transport)(invoke());
    expect(reply).toEqual({ kind: 'err', error: refused });
    expect(calls).toHaveLength(1);
  });

  it('never retries a call that may have run: a lost connection, a deadline, a pack error', async () => {
    const mayHaveRun: PackReply[] = [
      { kind: 'err', error: { code: 'pack-connection-failed', message: 'died', status: 502 } },
      { kind: 'ok', value: { v: 2, kind: 'error', code: 'deadline-exceeded', message: 'silent' } as PackResponse },
      { kind: 'err', error: { code: 'pack-bad-reply', message: 'HTTP 500', status: 500 } },
    ];
    for (const reply of mayHaveRun) {
      const { transport, calls } = scripted([reply, RESULT]);
      expect(await composePackCall(retryLayer({ budgetMs: 60_000 }))(transport)(invoke())).toEqual(reply);
      expect(calls).toHaveLength(1);
    }
    expect(didNotRun({ code: 'pack-connection-failed', message: 'x' })).toBe(false);
    expect(didNotRun(BUSY)).toBe(true);
  });

  it('gives up with pack-call-aborted when the caller cancels while it waits to retry', async () => {
    const abort = new AbortController();
    const long: PackTransportError = { ...BUSY, retryAfterMs: 60_000 };
    const transport: PackCaller = async () => {
      queueMicrotask(() => abort.abort());
      return { kind: 'err', error: long };
    };
    const reply = await composePackCall(retryLayer({ budgetMs: 120_000 }))(transport)({
      ...invoke(120_000),
      signal: abort.signal,
    });
    expect(reply).toMatchObject({ kind: 'err', error: { code: 'pack-call-aborted' } });
  });
});
