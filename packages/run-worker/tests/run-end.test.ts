import { createInMemoryRunStore } from '@kindgi/testing';
import { describe, expect, it } from 'vitest';
import { watchRunEnd } from '../src/run-end.js';
import { queuedRun } from './helpers.js';
import { watchedStore } from './watched-store.js';

const JOB = { packId: 'pack-demo', requestId: 'req-1', guardrails: [] };
const KEY = { tenantId: 't1', runId: 'run-1' };
const HOUR = 3_600_000;

describe('watchRunEnd', () => {
  it('starts from the queued record and reads only at the notice that ends the wait', async () => {
    const watched = watchedStore(createInMemoryRunStore());
    const { runStore } = watched;
    const watch = watchRunEnd(runStore, KEY, HOUR);
    const queued = await runStore.enqueue(queuedRun('run-1'), JOB, { maxQueued: 10 });
    if (queued.kind !== 'ok') throw new Error('enqueue failed');
    const done = watch.done(queued.value);
    await runStore.claim({ owner: 'me', leaseMs: 30_000, busyPacks: [] });
    await runStore.finish('t1', 'run-1', { status: 'completed', output: { n: 2 } }, { owner: 'me' });
    expect(await done).toMatchObject({ kind: 'ok', value: { status: 'completed', output: { n: 2 } } });
    // Neither the queued run nor the claim's notice (`running`) was read: only the end.
    expect(watched.reads()).toBe(1);
  });

  it('wakes on a notice without a status (one sent after a lost connection) and finds the end', async () => {
    const watched = watchedStore(createInMemoryRunStore(), true);
    const { runStore } = watched;
    const watch = watchRunEnd(runStore, KEY, HOUR);
    const queued = await runStore.enqueue(queuedRun('run-1'), JOB, { maxQueued: 10 });
    if (queued.kind !== 'ok') throw new Error('enqueue failed');
    const done = watch.done(queued.value);
    await runStore.finish('t1', 'run-1', { status: 'cancelled' });
    watched.notify('running');
    expect(watched.reads()).toBe(0);
    watched.notify();
    expect(await done).toMatchObject({ kind: 'ok', value: { status: 'cancelled' } });
  });

  it('finds the end at its poll when every notice was lost', async () => {
    const watched = watchedStore(createInMemoryRunStore(), true);
    const { runStore } = watched;
    await runStore.enqueue(queuedRun('run-1'), JOB, { maxQueued: 10 });
    const done = watchRunEnd(runStore, KEY, 20).done();
    await runStore.finish('t1', 'run-1', { status: 'cancelled' });
    expect(await done).toMatchObject({ kind: 'ok', value: { status: 'cancelled' } });
  });

  it('answers run-not-found for a run that does not exist', async () => {
    const done = watchRunEnd(createInMemoryRunStore(), KEY, HOUR).done();
    expect(await done).toMatchObject({ kind: 'err', error: { code: 'run-not-found' } });
  });
});
