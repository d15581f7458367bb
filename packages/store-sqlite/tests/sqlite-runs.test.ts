import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { contractRun, describeRunStoreContract } from '@kindgi/testing/contract-suite';
import { afterEach, expect, it } from 'vitest';
import { createSqliteRunStore } from '../src/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function freshDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'kindgi-runs-'));
  dirs.push(dir);
  return dir;
}

function value<T>(result: { kind: 'ok'; value: T } | { kind: 'err'; error: unknown }): T {
  if (result.kind === 'err') throw new Error(JSON.stringify(result.error));
  return result.value;
}

const job = { packId: 'p1', requestId: 'req-1', guardrails: [] };

describeRunStoreContract('sqlite', async () => {
  const store = createSqliteRunStore(freshDir());
  return { store, close: () => store.close() };
});

it('keeps queued runs, journals and outputs across a reopen; fails only the running ones', async () => {
  const dataDir = freshDir();
  const before = createSqliteRunStore(dataDir);
  value(await before.enqueue(contractRun('done-run'), job, { maxQueued: 9 }));
  value(await before.enqueue(contractRun('queued-run'), { ...job, packId: 'p2' }, { maxQueued: 9 }));
  value(await before.enqueue(contractRun('running-run', { tenantId: 't2' }), job, { maxQueued: 9 }));
  const claim = { owner: 'o1', leaseMs: 60_000, busyPacks: ['p2'] };
  expect(value(await before.claim(claim))?.run.runId).toBe('done-run');
  value(await before.finish('t1', 'done-run', { status: 'completed', output: { n: 1 } }, { owner: 'o1' }));
  expect(value(await before.claim(claim))?.run.runId).toBe('running-run');
  before.close();

  const after = createSqliteRunStore(dataDir);
  try {
    const failed = value(after.failInterruptedRuns());
    expect(failed.map((r) => [r.tenantId, r.runId, r.status, r.error?.code])).toEqual([
      ['t2', 'running-run', 'failed', 'run-interrupted'],
    ]);
    expect(value(await after.get('t1', 'done-run'))).toMatchObject({ status: 'completed', output: { n: 1 } });
    expect(value(await after.get('t1', 'queued-run'))?.status).toBe('queued');
    const events = value(await after.listEvents('t2', 'running-run', 0));
    expect(events.map((e) => e.kind)).toEqual(['run.started', 'run.failed']);
    expect(value(after.failInterruptedRuns())).toEqual([]);
    expect(value(await after.claim({ owner: 'o2', leaseMs: 60_000, busyPacks: [] }))).toMatchObject({
      run: { runId: 'queued-run' },
      attempt: 1,
    });
  } finally {
    after.close();
  }
});
