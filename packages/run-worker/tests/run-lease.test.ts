import { createInMemoryRunStore } from '@kindgi/testing';
import { describe, expect, it } from 'vitest';
import { keepRunLeased } from '../src/run-lease.js';
import { failingWhile, queuedRun } from './helpers.js';
import { watchedStore } from './watched-store.js';

const JOB = { packId: 'pack-demo', requestId: 'req-1', guardrails: [] };

async function claimedRun(runId: string) {
  const runStore = createInMemoryRunStore();
  await runStore.enqueue(queuedRun(runId), JOB, { maxQueued: 10 });
  await runStore.claim({ owner: 'me', leaseMs: 30_000, busyPacks: [] });
  return { runStore, key: { tenantId: 't1', runId } };
}

/** A promise and the callback that settles it, for waiting on `lost` or `onStoreFailure`. */
function signal(): { promise: Promise<void>; fire: () => void } {
  let fire!: () => void;
  const promise = new Promise<void>((resolve) => {
    fire = resolve;
  });
  return { promise, fire };
}

describe('keepRunLeased', () => {
  it('says the run is lost once another server cancels it', async () => {
    const { runStore, key } = await claimedRun('run-1');
    const lost = signal();
    const stop = keepRunLeased(key, {
      runStore,
      owner: 'me',
      leaseMs: 60_000,
      lost: lost.fire,
      onStoreFailure: () => {},
    });
    await runStore.finish('t1', 'run-1', { status: 'cancelled' });
    await lost.promise;
    stop();
  });

  it('reads the run only at a notice without a status: a terminal status is the end by itself', async () => {
    const claimed = await claimedRun('run-4');
    const watched = watchedStore(claimed.runStore);
    let lost = 0;
    const keeping = { runStore: watched.runStore, owner: 'me', leaseMs: 60_000, onStoreFailure: () => {} };
    const stop = keepRunLeased(claimed.key, { ...keeping, lost: () => lost++ });
    watched.notify('running');
    expect(watched.reads()).toBe(0);
    await claimed.runStore.finish('t1', 'run-4', { status: 'cancelled' });
    expect([lost, watched.reads()]).toEqual([1, 0]);
    stop();
  });

  it('finds a cancel whose notice was lost at the notice sent after the reconnect', async () => {
    const claimed = await claimedRun('run-5');
    const watched = watchedStore(claimed.runStore, true);
    const lost = signal();
    const keeping = { runStore: watched.runStore, owner: 'me', leaseMs: 60_000, onStoreFailure: () => {} };
    const stop = keepRunLeased(claimed.key, { ...keeping, lost: lost.fire });
    await claimed.runStore.finish('t1', 'run-5', { status: 'cancelled' });
    watched.notify();
    await lost.promise;
    expect(watched.reads()).toBe(1);
    stop();
  });

  it('says the run is lost when a heartbeat finds the lease held by another', async () => {
    const { runStore, key } = await claimedRun('run-2');
    const lost = signal();
    const stop = keepRunLeased(key, {
      runStore,
      owner: 'not-me',
      leaseMs: 30,
      lost: lost.fire,
      onStoreFailure: () => {},
    });
    await lost.promise;
    stop();
  });

  it('takes a failed heartbeat as the store’s failure, not as the end of the run', async () => {
    const claimed = await claimedRun('run-3');
    const runStore = failingWhile(claimed.runStore, 'heartbeat', () => true);
    const failed = signal();
    let lost = false;
    const stop = keepRunLeased(claimed.key, {
      runStore,
      owner: 'me',
      leaseMs: 30,
      lost: () => {
        lost = true;
      },
      onStoreFailure: failed.fire,
    });
    await failed.promise;
    stop();
    expect(lost).toBe(false);
  });
});
