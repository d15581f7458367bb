import { startPostgres, type TestPostgres } from '@kindgi/test-services/postgres';
import { contractRun, describeRunStoreContract } from '@kindgi/testing/contract-suite';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openPostgresStores } from '../src/index.js';

let server: TestPostgres;
let count = 0;
beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => {
  await server?.stop();
});

async function openPair() {
  const url = await server.createDatabase(`runs_${++count}`);
  const opened = [await openPostgresStores({ url }), await openPostgresStores({ url })];
  const [a, b] = opened.map((result) => {
    if (result.kind === 'err') throw new Error(result.error.message);
    return result.value;
  });
  if (a === undefined || b === undefined) throw new Error('unreachable');
  return { a, b };
}

describeRunStoreContract('postgres', async () => {
  const { a, b } = await openPair();
  return {
    store: a.runStore,
    peer: b.runStore,
    close: async () => {
      await a.close();
      await b.close();
    },
  };
});

it('announces a requeued run to the queue watchers of every server', async () => {
  const { a, b } = await openPair();
  let calls = 0;
  let wake = () => {};
  const called = (n: number) =>
    new Promise<void>((resolve) => {
      wake = () => calls >= n && resolve();
      wake();
    });
  try {
    const job = { packId: 'p1', requestId: 'req-1', guardrails: [] };
    expect((await a.runStore.enqueue(contractRun('r1'), job, { maxQueued: 9 })).kind).toBe('ok');
    expect((await a.runStore.claim({ owner: 'o1', leaseMs: 60_000, busyPacks: [] })).kind).toBe('ok');
    b.runStore.watchQueue(() => {
      calls++;
      wake();
    });
    // Watchers are called once when the listener's connection starts listening: only then can it hear.
    await called(1);
    expect((await a.runStore.requeue('t1', 'r1', 'o1', 0)).kind).toBe('ok');
    await called(2);
  } finally {
    await a.close();
    await b.close();
  }
});
