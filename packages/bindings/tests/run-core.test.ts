import { describe, expect, it } from 'vitest';
import { encodeListCursor, type RunRecord } from '../src/index.js';
import { decodeRunCursor } from '../src/run-core/store.js';
import { claimRun, finishRun, interruptRun, type RunRow, requeueRun } from '../src/run-core/transitions.js';
import { createLocalRunWatchers } from '../src/run-core/watchers.js';

const AT = '2030-01-02T03:04:05.000Z';
const record = (extra: Partial<RunRecord> = {}): RunRecord => ({
  runId: 'r1',
  tenantId: 't1',
  toolId: 'echo',
  status: 'queued',
  input: 1,
  guardrails: [],
  violations: [],
  createdAt: 'then',
  updatedAt: 'then',
  ...extra,
});
const row = (run: RunRecord, extra: Partial<RunRow> = {}): RunRow => ({
  status: run.status,
  record: JSON.stringify(run),
  output: null,
  job: '{}',
  attempts: 0,
  lease_owner: null,
  ...extra,
});
const running = (extra: Partial<RunRow> = {}) =>
  row(record({ status: 'running', startedAt: 'then' }), { attempts: 1, lease_owner: 'o1', ...extra });

describe('run transitions', () => {
  it('a first claim starts the run and journals it; a later one is only its next attempt', () => {
    const first = claimRun(row(record()), { owner: 'o1', ms: 5 }, AT);
    expect(first).toMatchObject({ run: { status: 'running', startedAt: AT, updatedAt: AT }, attempts: 1 });
    expect(first).toMatchObject({ lease: { owner: 'o1', ms: 5 }, journal: 'run.started' });
    const again = claimRun(row(record({ startedAt: 'then' }), { attempts: 1 }), { owner: 'o2', ms: 5 }, AT);
    expect(again).toMatchObject({ run: { startedAt: 'then' }, attempts: 2 });
    expect(again.journal).toBeUndefined();
  });

  it('requeues only while the same owner holds the running run, clearing the lease', () => {
    expect(requeueRun(running(), 'r1', 'o1', 50, AT)).toMatchObject({
      value: { run: { status: 'queued', updatedAt: AT }, attempts: 1, delayMs: 50 },
    });
    expect(requeueRun(running(), 'r1', 'o1', 50, AT)).not.toHaveProperty('value.lease');
    const interrupted = running({ status: 'failed', lease_owner: null });
    for (const lost of [interrupted, running({ lease_owner: 'o2' }), undefined]) {
      expect(requeueRun(lost, 'r1', 'o1', 50, AT)).toMatchObject({ error: { code: 'run-lease-lost' } });
    }
  });

  it('finishes with the output kept apart, journaling the terminal kind', () => {
    const done = finishRun(running(), 'r1', { status: 'completed', output: { a: 'é' } }, 'o1', AT);
    expect(done).toMatchObject({
      value: { output: '{"a":"é"}', journal: 'run.completed', run: { status: 'completed', outputSize: 10 } },
    });
    expect(done).not.toHaveProperty('value.run.output');
    expect(finishRun(row(record()), 'r1', { status: 'cancelled' }, undefined, AT)).toMatchObject({
      value: { run: { status: 'cancelled', finishedAt: AT }, output: null, journal: 'run.cancelled' },
    });
  });

  it('refuses a missing run, a lost lease and a second finish', () => {
    const outcome = { status: 'cancelled' } as const;
    expect(finishRun(undefined, 'r9', outcome, undefined, AT)).toMatchObject({ error: { code: 'run-not-found' } });
    expect(finishRun(running(), 'r1', outcome, 'o2', AT)).toMatchObject({ error: { code: 'run-lease-lost' } });
    const finished = row(record({ status: 'completed' }), { output: '[1]' });
    expect(finishRun(finished, 'r1', outcome, undefined, AT)).toMatchObject({
      error: { code: 'run-already-terminal', run: { status: 'completed', output: [1] } },
    });
    expect(interruptRun(running(), 'gone', AT)).toMatchObject({
      value: { run: { status: 'failed', error: { code: 'run-interrupted', message: 'gone' } } },
    });
  });
});

describe('run cursors', () => {
  it('reads the listing format and the bare sequences of earlier PostgreSQL stores', () => {
    expect(decodeRunCursor(encodeListCursor(42))).toEqual({ kind: 'ok', value: 42 });
    expect(decodeRunCursor('42')).toEqual({ kind: 'ok', value: 42 });
  });

  it('is invalid-cursor for anything else, such as the run ids of earlier in-memory stores', () => {
    const foreign = Buffer.from(JSON.stringify({ v: 2, s: 1 })).toString('base64url');
    for (const cursor of ['r1', foreign, '', '9'.repeat(16)]) {
      expect(decodeRunCursor(cursor)).toMatchObject({ error: { code: 'invalid-cursor' } });
    }
  });
});

it('a second unsubscribe of a run watcher leaves later watchers subscribed', () => {
  const watchers = createLocalRunWatchers();
  let calls = 0;
  const stop = watchers.watch('t1', 'r1', () => {});
  stop();
  watchers.watch('t1', 'r1', () => calls++);
  stop();
  watchers.changed('t1', 'r1');
  expect(calls).toBe(1);
});
