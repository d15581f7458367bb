import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { type CallHolds, createCallHolds, type FrontState, type HoldOutcome } from '../src/supervisor/hold.js';
import type { SupervisorEvent } from '../src/supervisor/types.js';

const A = { url: 'http://127.0.0.1:1', token: 't' };
const B = { url: 'http://127.0.0.1:2', token: 't' };

/** A hold queue over a state the test sets, recording its events. */
function queue(maxHeld = 10) {
  let state: FrontState = { kind: 'expected' };
  const events: SupervisorEvent[] = [];
  const holds: CallHolds = createCallHolds({ state: () => state, maxHeld, emit: (event) => events.push(event) });
  return {
    holds,
    events,
    set(next: FrontState) {
      state = next;
      holds.update();
    },
  };
}

/** A server response as the front gets one (its `close` is how a caller's disconnect shows). */
function response(): ServerResponse {
  return new ServerResponse(new IncomingMessage(new Socket()));
}

/** Settles after every already-queued callback has run, so "still pending" is certain, not timed. */
const drained = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('supervisor: the call hold', () => {
  it('releases held calls first come first served once a child serves, and detaches from each response', async () => {
    const { holds, events, set } = queue();
    const responses = [response(), response(), response()];
    const order: number[] = [];
    const pending = responses.map((res, i) =>
      holds.acquire({ res, boundMs: 60_000 }).then((outcome) => {
        order.push(i);
        return outcome;
      }),
    );
    expect(holds.size).toBe(3);
    set({ kind: 'expected' });
    await drained();
    expect(order).toEqual([]);

    set({ kind: 'serving', target: A });
    const outcomes = await Promise.all(pending);
    expect(order).toEqual([0, 1, 2]);
    expect(outcomes.map((outcome) => outcome.kind === 'target' && outcome.target.url)).toEqual([A.url, A.url, A.url]);
    expect(responses.map((res) => res.listenerCount('close'))).toEqual([0, 0, 0]);
    expect(holds.size).toBe(0);
    expect(events.map((event) => [event.kind, 'held' in event ? event.held : undefined])).toEqual([
      ['call-held', 1],
      ['call-held', 2],
      ['call-held', 3],
      ['call-released', 2],
      ['call-released', 1],
      ['call-released', 0],
    ]);
  });

  it('hands a serving child at once, and keeps a call that avoids it until another serves', async () => {
    const { holds, set } = queue();
    set({ kind: 'serving', target: A });
    expect(await holds.acquire({ res: response(), boundMs: 1_000 })).toEqual({ kind: 'target', target: A, heldMs: 0 });
    let settled: HoldOutcome | undefined;
    const avoiding = holds.acquire({ res: response(), boundMs: 60_000, avoid: A.url }).then((outcome) => {
      settled = outcome;
      return outcome;
    });
    set({ kind: 'serving', target: A });
    await drained();
    expect(settled).toBeUndefined();
    set({ kind: 'serving', target: B });
    expect(await avoiding).toMatchObject({ kind: 'target', target: B });
  });

  it('answers held calls unavailable when nothing is coming any more, with the reason', async () => {
    const { holds, events, set } = queue();
    const held = holds.acquire({ res: response(), boundMs: 60_000 });
    set({ kind: 'unavailable', reason: 'boot-failed' });
    expect(await held).toEqual({ kind: 'unavailable', reason: 'boot-failed' });
    expect(events.at(-1)).toMatchObject({ kind: 'call-released', outcome: 'unavailable', reason: 'boot-failed' });
    expect(await holds.acquire({ res: response(), boundMs: 60_000 })).toEqual({
      kind: 'unavailable',
      reason: 'boot-failed',
    });
    expect(holds.size).toBe(0);
  });

  it('drops a call whose caller disconnects while held', async () => {
    const { holds, events, set } = queue();
    const res = response();
    const held = holds.acquire({ res, boundMs: 60_000 });
    res.emit('close');
    expect(await held).toEqual({ kind: 'left' });
    expect(res.listenerCount('close')).toBe(0);
    expect(events.at(-1)).toMatchObject({ kind: 'call-released', outcome: 'caller-left', held: 0 });
    set({ kind: 'serving', target: A });
    expect(events.filter((event) => event.kind === 'call-released').length).toBe(1);
    res.destroy();
    set({ kind: 'expected' });
    expect(await holds.acquire({ res, boundMs: 60_000 })).toEqual({ kind: 'left' });
  });

  it('ends a hold at its bound, refuses at once with no bound or a full hold', async () => {
    const { holds, events } = queue(1);
    expect(await holds.acquire({ res: response(), boundMs: 0 })).toEqual({ kind: 'unavailable', reason: 'restarting' });
    const res = response();
    const bounded = holds.acquire({ res, boundMs: 20 });
    expect(await holds.acquire({ res: response(), boundMs: 60_000 })).toEqual({
      kind: 'unavailable',
      reason: 'hold-full',
    });
    expect(events.find((event) => event.kind === 'call-refused')).toEqual({
      kind: 'call-refused',
      reason: 'hold-full',
      held: 1,
    });
    expect(await bounded).toEqual({ kind: 'unavailable', reason: 'hold-timeout' });
    expect(res.listenerCount('close')).toBe(0);
    expect(holds.size).toBe(0);
  });
});
