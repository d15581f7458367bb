import { expect, it } from 'vitest';
import { contractRun, describeRunStoreContract } from '../src/contract-suite.js';
import { createInMemoryRunStore } from '../src/index.js';

describeRunStoreContract('in memory', async () => ({ store: createInMemoryRunStore() }));

it('pages with the one run cursor: a run id (its earlier format) is invalid-cursor', async () => {
  const store = createInMemoryRunStore();
  for (const runId of ['r1', 'r2', 'r3']) {
    await store.enqueue(contractRun(runId), { packId: 'p1', requestId: 'q', guardrails: [] }, { maxQueued: 9 });
  }
  const first = await store.list('t1', {}, undefined, 2);
  expect(first).toMatchObject({ kind: 'ok', value: { data: [{ runId: 'r3' }, { runId: 'r2' }] } });
  const cursor = first.kind === 'ok' ? first.value.nextCursor : undefined;
  expect(await store.list('t1', {}, cursor, 2)).toMatchObject({ value: { data: [{ runId: 'r1' }] } });
  expect(await store.list('t1', {}, 'r2', 2)).toMatchObject({ error: { code: 'invalid-cursor' } });
});
