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

it('servers claiming at once take every run exactly once', async () => {
  const { a, b } = await openPair();
  try {
    const job = { packId: 'p1', requestId: 'req-1', guardrails: [] };
    const ids = Array.from({ length: 24 }, (_, i) => `r${i}`);
    for (const id of ids) {
      const tenantId = `t${Number(id.slice(1)) % 3}`;
      expect((await a.runStore.enqueue(contractRun(id, { tenantId }), job, { maxQueued: 99 })).kind).toBe('ok');
    }
    const claimed: string[] = [];
    const claimer = async (store: typeof a.runStore, owner: string) => {
      for (;;) {
        const result = await store.claim({ owner, leaseMs: 60_000, busyPacks: [] });
        if (result.kind === 'err') throw new Error(result.error.message);
        if (result.value === null) return;
        claimed.push(result.value.run.runId);
      }
    };
    await Promise.all([a, b, a, b, a, b].map((opened, i) => claimer(opened.runStore, `o${i}`)));
    expect([...claimed].sort()).toEqual([...ids].sort());
  } finally {
    await a.close();
    await b.close();
  }
});

it('a finish racing a cancel on another server ends the run once, with one terminal event', async () => {
  const { a, b } = await openPair();
  try {
    const job = { packId: 'p1', requestId: 'req-1', guardrails: [] };
    for (let i = 0; i < 8; i++) {
      const runId = `race${i}`;
      expect((await a.runStore.enqueue(contractRun(runId), job, { maxQueued: 99 })).kind).toBe('ok');
      expect((await a.runStore.claim({ owner: 'o1', leaseMs: 60_000, busyPacks: [] })).kind).toBe('ok');
      const [finished, cancelled] = await Promise.all([
        a.runStore.finish('t1', runId, { status: 'completed', output: i }, { owner: 'o1' }),
        b.runStore.finish('t1', runId, { status: 'cancelled' }),
      ]);
      const winners = [finished, cancelled].filter((result) => result.kind === 'ok');
      expect(winners).toHaveLength(1);
      const events = await a.runStore.listEvents('t1', runId, 0);
      if (events.kind === 'err') throw new Error(events.error.message);
      const terminal = events.value.filter((event) => event.kind !== 'run.started');
      expect(terminal).toHaveLength(1);
    }
  } finally {
    await a.close();
    await b.close();
  }
});

it('reads of a run asked for together share a statement, and a read asked for after a change sees it', async () => {
  const { a, b } = await openPair();
  try {
    const job = { packId: 'p1', requestId: 'req-1', guardrails: [] };
    expect((await a.runStore.enqueue(contractRun('r1'), job, { maxQueued: 9 })).kind).toBe('ok');
    const together = await Promise.all([a.runStore.get('t1', 'r1'), a.runStore.get('t1', 'r1')]);
    expect(together.map((read) => read.kind === 'ok' && read.value?.status)).toEqual(['queued', 'queued']);
    const earlier = a.runStore.get('t1', 'r1');
    expect((await a.runStore.finish('t1', 'r1', { status: 'cancelled' })).kind).toBe('ok');
    const later = await a.runStore.get('t1', 'r1');
    expect(later.kind === 'ok' && later.value?.status).toBe('cancelled');
    expect((await earlier).kind).toBe('ok');
  } finally {
    await a.close();
    await b.close();
  }
});
