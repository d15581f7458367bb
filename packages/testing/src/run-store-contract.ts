import type { RunJob, RunRecord, RunStore } from '@kindgi/bindings';
import type { Result } from '@kindgi/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

/** A fresh, empty store for one test of {@link describeRunStoreContract}, and how to close it. */
export interface RunStoreContractSubject {
  store: RunStore;
  /** A second handle on the same data (another process's view), when the store can be shared. */
  peer?: RunStore;
  close?(): Promise<void> | void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function value<T>(result: Result<T, unknown>): T {
  if (result.kind !== 'ok') throw new Error(`expected ok, got ${JSON.stringify(result.error)}`);
  return result.value;
}

/** A run record as `POST /v1/runs` builds it. */
export function contractRun(runId: string, extra: Partial<RunRecord> = {}): RunRecord {
  const at = new Date().toISOString();
  return {
    runId,
    tenantId: 't1',
    toolId: 'echo',
    status: 'queued',
    input: { a: 1 },
    guardrails: [],
    violations: [],
    createdAt: at,
    updatedAt: at,
    ...extra,
  };
}

const job = (packId = 'p1'): RunJob => ({ packId, requestId: 'req-1', guardrails: [] });
const claimReq = (owner: string, busyPacks: string[] = [], leaseMs = 60_000) => ({ owner, leaseMs, busyPacks });

/** The `RunStore` contract (queue, leases, journal, listing) as a vitest suite. */
export function describeRunStoreContract(name: string, factory: () => Promise<RunStoreContractSubject>): void {
  describe(`RunStore contract: ${name}`, () => {
    let subject: RunStoreContractSubject | undefined;
    const store = (): RunStore => (subject as RunStoreContractSubject).store;
    beforeEach(async () => {
      subject = await factory();
    });
    afterEach(async () => {
      await subject?.close?.();
      subject = undefined;
    });

    it('enqueues per tenant, refuses duplicates and a full queue', async () => {
      value(await store().enqueue(contractRun('r1'), job(), { maxQueued: 2 }));
      expect(await store().enqueue(contractRun('r1'), job(), { maxQueued: 2 })).toMatchObject({
        error: { code: 'run-already-exists' },
      });
      value(await store().enqueue(contractRun('r2'), job(), { maxQueued: 2 }));
      expect(await store().enqueue(contractRun('r3'), job(), { maxQueued: 2 })).toMatchObject({
        error: { code: 'run-queue-full' },
      });
      value(await store().enqueue(contractRun('r4'), job('p2'), { maxQueued: 2 }));
      expect(value(await store().get('t1', 'r1'))).toMatchObject({ status: 'queued', input: { a: 1 } });
      expect(value(await store().get('t2', 'r1'))).toBeNull();
    });

    it('claims the oldest available run once, skipping busy packs, and journals run.started', async () => {
      for (const id of ['a', 'b', 'c'])
        value(await store().enqueue(contractRun(id), job(id === 'b' ? 'p2' : 'p1'), { maxQueued: 9 }));
      const first = value(await store().claim(claimReq('o1', ['p2'])));
      expect(first).toMatchObject({ run: { runId: 'a', status: 'running' }, job: { packId: 'p1' }, attempt: 1 });
      const handles = [store(), subject?.peer ?? store()];
      const claims = await Promise.all(
        Array.from({ length: 6 }, (_, i) => (handles[i % 2] as RunStore).claim(claimReq(`o${i}`))),
      );
      const ids = claims.map((c) => value(c)?.run.runId).filter((id) => id !== undefined);
      expect(ids.sort()).toEqual(['b', 'c']);
      expect(value(await store().claim(claimReq('o9')))).toBeNull();
      const events = value(await store().listEvents('t1', 'a', 0));
      expect(events.map((e) => [e.sequence, e.kind])).toEqual([[1, 'run.started']]);
      expect(value(await store().get('t1', 'a'))?.startedAt).toBeDefined();
    });

    it('finishes only under its own lease, journaling the terminal event once', async () => {
      value(await store().enqueue(contractRun('r1'), job(), { maxQueued: 9 }));
      value(await store().claim(claimReq('o1')));
      expect(await store().finish('t1', 'r1', { status: 'completed', output: 1 }, { owner: 'o2' })).toMatchObject({
        error: { code: 'run-lease-lost' },
      });
      expect(value(await store().heartbeat('t1', 'r1', 'o1', 60_000))).toBe(true);
      expect(value(await store().heartbeat('t1', 'r1', 'o2', 60_000))).toBe(false);
      const output = { text: 'x'.repeat(1000) };
      const done = value(await store().finish('t1', 'r1', { status: 'completed', output }, { owner: 'o1' }));
      expect(done).toMatchObject({ status: 'completed', output, outputSize: JSON.stringify(output).length });
      expect(done.finishedAt).toBeDefined();
      expect(await store().finish('t1', 'r1', { status: 'cancelled' })).toMatchObject({
        error: { code: 'run-already-terminal' },
      });
      expect(value(await store().heartbeat('t1', 'r1', 'o1', 60_000))).toBe(false);
      const events = value(await store().listEvents('t1', 'r1', 0));
      expect(events.map((e) => e.kind)).toEqual(['run.started', 'run.completed']);
      // The output is kept once, on the run: neither the journal nor a listing repeats it.
      expect(JSON.stringify(events)).not.toContain('xxxxxxxxxx');
      const listed = value(await store().list('t1', {}, undefined, 10)).data;
      expect(listed[0]).toMatchObject({ runId: 'r1', outputSize: done.outputSize });
      expect(listed[0]).not.toHaveProperty('output');
      expect(value(await store().get('t1', 'r1'))).toMatchObject({ output });
    });

    it('cancels a queued or running run; the executor then loses its lease', async () => {
      value(await store().enqueue(contractRun('q'), job(), { maxQueued: 9 }));
      expect(value(await store().finish('t1', 'q', { status: 'cancelled' }))).toMatchObject({ status: 'cancelled' });
      expect(value(await store().claim(claimReq('o1')))).toBeNull();
      value(await store().enqueue(contractRun('r'), job(), { maxQueued: 9 }));
      value(await store().claim(claimReq('o1')));
      value(await store().finish('t1', 'r', { status: 'cancelled' }));
      expect(value(await store().heartbeat('t1', 'r', 'o1', 60_000))).toBe(false);
      expect(await store().finish('t1', 'r', { status: 'completed' }, { owner: 'o1' })).toMatchObject({
        error: { code: 'run-lease-lost' },
      });
      expect(await store().finish('t1', 'nope', { status: 'cancelled' })).toMatchObject({
        error: { code: 'run-not-found' },
      });
    });

    it('requeues a run for later and claims it again as its next attempt', async () => {
      value(await store().enqueue(contractRun('r1'), job(), { maxQueued: 9 }));
      value(await store().claim(claimReq('o1')));
      value(await store().requeue('t1', 'r1', 'o1', 60_000));
      expect(value(await store().get('t1', 'r1'))?.status).toBe('queued');
      expect(value(await store().claim(claimReq('o2')))).toBeNull();
      value(await store().enqueue(contractRun('r2'), job(), { maxQueued: 9 }));
      value(await store().claim(claimReq('o2')));
      value(await store().requeue('t1', 'r2', 'o2', 0));
      expect(value(await store().claim(claimReq('o3')))).toMatchObject({ run: { runId: 'r2' }, attempt: 2 });
      expect(value(await store().listEvents('t1', 'r2', 0)).map((e) => e.kind)).toEqual(['run.started']);
    });

    it('fails runs whose lease expired as run-interrupted, once', async () => {
      value(await store().enqueue(contractRun('r1'), job(), { maxQueued: 9 }));
      value(await store().enqueue(contractRun('r2'), job(), { maxQueued: 9 }));
      value(await store().claim(claimReq('o1', [], 1)));
      value(await store().claim(claimReq('o1', [], 60_000)));
      await sleep(30);
      const expired = value(await store().expireLeases('gone'));
      expect(expired.map((r) => [r.runId, r.status, r.error?.code])).toEqual([['r1', 'failed', 'run-interrupted']]);
      expect(value(await store().expireLeases('gone'))).toEqual([]);
      expect(value(await store().listEvents('t1', 'r1', 0)).map((e) => e.kind)).toEqual(['run.started', 'run.failed']);
      expect(await store().finish('t1', 'r1', { status: 'completed' }, { owner: 'o1' })).toMatchObject({
        error: { code: 'run-lease-lost' },
      });
    });

    it('notifies watchers of a run and of the queue', async () => {
      const watcher = subject?.peer ?? store();
      let queued = 0;
      let changed = 0;
      const stopQueue = watcher.watchQueue(() => queued++);
      const stopRun = watcher.watch('t1', 'r1', () => changed++);
      try {
        value(await store().enqueue(contractRun('r1'), job(), { maxQueued: 9 }));
        value(await store().claim(claimReq('o1')));
        value(await store().appendEvent('t1', 'r1', { kind: 'guardrail.violation', data: { n: 1 } }));
        value(await store().finish('t1', 'r1', { status: 'cancelled' }));
        for (let i = 0; i < 100 && (queued < 1 || changed < 3); i++) await sleep(20);
        expect(queued).toBeGreaterThanOrEqual(1);
        expect(changed).toBeGreaterThanOrEqual(3);
      } finally {
        stopQueue();
        stopRun();
      }
    });

    it('numbers events from 1 and lists them after a sequence', async () => {
      value(await store().enqueue(contractRun('r1'), job(), { maxQueued: 9 }));
      await Promise.all(
        Array.from({ length: 5 }, (_, i) => store().appendEvent('t1', 'r1', { kind: 'x', data: { i } })),
      );
      const events = value(await store().listEvents('t1', 'r1', 2));
      expect(events.map((e) => e.sequence)).toEqual([3, 4, 5]);
      expect(await store().appendEvent('t1', 'nope', { kind: 'x', data: 1 })).toMatchObject({
        error: { code: 'run-not-found' },
      });
    });

    it('lists newest first with filters and a cursor', async () => {
      for (let i = 0; i < 5; i++)
        value(
          await store().enqueue(contractRun(`r${i}`, { toolId: i % 2 ? 'odd' : 'even' }), job(), { maxQueued: 99 }),
        );
      value(await store().enqueue(contractRun('other', { tenantId: 't2' }), job(), { maxQueued: 99 }));
      const first = value(await store().list('t1', { toolId: 'even' }, undefined, 2));
      expect(first.data.map((r) => r.runId)).toEqual(['r4', 'r2']);
      const second = value(await store().list('t1', { toolId: 'even' }, first.nextCursor, 2));
      expect(second.data.map((r) => r.runId)).toEqual(['r0']);
      expect(second.nextCursor).toBeUndefined();
      value(await store().finish('t1', 'r3', { status: 'cancelled' }));
      expect(value(await store().list('t1', { status: 'cancelled' }, undefined, 10)).data.map((r) => r.runId)).toEqual([
        'r3',
      ]);
    });
  });
}
