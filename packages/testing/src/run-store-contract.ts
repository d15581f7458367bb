import type { RunJob, RunRecord, RunStore } from '@kindgi/bindings';
import type { Result } from '@kindgi/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { describeApprovalContract } from './run-store-approvals-contract.js';

/** A fresh, empty store for one test of {@link describeRunStoreContract}, and how to close it. */
export interface RunStoreContractSubject {
  store: RunStore;
  /** A second handle on the same data (another process's view), when the store can be shared. */
  peer?: RunStore;
  close?(): Promise<void> | void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A promise settled from outside: a test waits on the event itself, bounded by the suite's timeout. */
function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((settle) => {
    resolve = () => settle();
  });
  return { promise, resolve };
}

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
const claimedId = (result: Result<{ run: RunRecord } | null, unknown>) => value(result)?.run.runId;

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

    it('claims fairly: the tenant with the fewest running runs, then the one claimed least recently', async () => {
      const runs = [
        ...['a1', 'a2', 'a3', 'a4'].map((id) => contractRun(id)),
        contractRun('b1', { tenantId: 't2' }),
        contractRun('c1', { tenantId: 't3' }),
        contractRun('c2', { tenantId: 't3' }),
      ];
      for (const run of runs) value(await store().enqueue(run, job(), { maxQueued: 99 }));
      const order: (string | undefined)[] = [];
      for (let i = 0; i < runs.length; i++) order.push(claimedId(await store().claim(claimReq('o1'))));
      // a1 first (no tenant runs anything); then b1 and c1 (their tenants run nothing); a2 next (t1's last
      // claim is older than t3's); c2 (t3 runs fewer than t1); then the rest of t1's.
      expect(order).toEqual(['a1', 'b1', 'c1', 'a2', 'c2', 'a3', 'a4']);
    });

    it('serves tenants in turn when one run executes at a time', async () => {
      for (const id of ['a1', 'a2', 'a3']) value(await store().enqueue(contractRun(id), job(), { maxQueued: 99 }));
      for (const id of ['b1', 'b2']) {
        value(await store().enqueue(contractRun(id, { tenantId: 't2' }), job(), { maxQueued: 99 }));
      }
      const order: string[] = [];
      for (let i = 0; i < 5; i++) {
        const claimed = value(await store().claim(claimReq('o1')));
        if (claimed === null) break;
        order.push(claimed.run.runId);
        value(await store().finish(claimed.run.tenantId, claimed.run.runId, { status: 'completed' }, { owner: 'o1' }));
      }
      expect(order).toEqual(['a1', 'b1', 'a2', 'b2', 'a3']);
    });

    it('refuses a tenant beyond its own queue limit while other tenants still enqueue', async () => {
      const limits = { maxQueued: 4, maxQueuedPerTenant: 2 };
      for (const id of ['r1', 'r2']) value(await store().enqueue(contractRun(id), job(), limits));
      const refused = await store().enqueue(contractRun('r3'), job(), limits);
      expect(refused).toMatchObject({ error: { code: 'run-queue-full' } });
      expect(refused.kind === 'err' && refused.error.message).toMatch(/Tenant 't1' has 2 runs .*limit per tenant/);
      // Another pack's queue, and another tenant's share of this one, are not affected.
      value(await store().enqueue(contractRun('r3'), job('p2'), limits));
      for (const id of ['x1', 'x2']) value(await store().enqueue(contractRun(id, { tenantId: 't2' }), job(), limits));
      // The pack's own limit still holds for everyone.
      const full = await store().enqueue(contractRun('y1', { tenantId: 't3' }), job(), limits);
      expect(full).toMatchObject({ error: { code: 'run-queue-full', message: expect.stringContaining("'p1'") } });
      expect(full.kind === 'err' && full.error.message).not.toMatch(/per tenant/);
      // A claimed run leaves the queue, so its tenant may enqueue again.
      value(await store().claim(claimReq('o1', ['p2'])));
      value(await store().enqueue(contractRun('r4'), job(), limits));
    });

    it('claims only runs of the packs the claimer serves', async () => {
      for (const [id, pack] of [
        ['a', 'p1'],
        ['b', 'p2'],
        ['c', 'p3'],
      ] as const) {
        value(await store().enqueue(contractRun(id), job(pack), { maxQueued: 9 }));
      }
      const serving = (servedPacks: string[], busyPacks: string[] = []) =>
        store().claim({ ...claimReq('o1', busyPacks), servedPacks });
      expect(claimedId(await serving(['p2']))).toBe('b');
      expect(claimedId(await serving(['p2']))).toBeUndefined();
      expect(claimedId(await serving([]))).toBeUndefined();
      expect(claimedId(await serving(['p1', 'p3'], ['p1']))).toBe('c');
      expect(claimedId(await store().claim(claimReq('o1')))).toBe('a');
    });

    it('leaves agent runs queued for a claimer that runs no agents', async () => {
      const agentJob: RunJob = { ...job(), agent: {} };
      value(await store().enqueue(contractRun('agent', { agentId: 'acme.helper' }), agentJob, { maxQueued: 9 }));
      value(await store().enqueue(contractRun('tool'), job(), { maxQueued: 9 }));
      const noAgents = () => store().claim({ ...claimReq('o1'), agents: false });
      expect(claimedId(await noAgents())).toBe('tool');
      expect(claimedId(await noAgents())).toBeUndefined();
      const claimed = value(await store().claim({ ...claimReq('o2'), agents: true }));
      expect(claimed).toMatchObject({ run: { runId: 'agent' }, job: { agent: {} } });
    });

    it('keeps a lease that ran out until a sweep fails the run, and spares the runs the sweeper keeps', async () => {
      for (const id of ['r1', 'r2', 'r3']) value(await store().enqueue(contractRun(id), job(), { maxQueued: 9 }));
      for (let i = 0; i < 3; i++) value(await store().claim(claimReq('o1', [], 1)));
      await sleep(30);
      // Its executor is back before any sweep: the run is still its own.
      expect(value(await store().heartbeat('t1', 'r1', 'o1', 60_000))).toBe(true);
      expect(value(await store().heartbeat('t1', 'r1', 'o2', 60_000))).toBe(false);
      const swept = value(await store().expireLeases('gone', { keep: [{ tenantId: 't1', runId: 'r2' }] }));
      expect(swept.map((run) => run.runId)).toEqual(['r3']);
      const done = value(await store().finish('t1', 'r2', { status: 'completed', output: 2 }, { owner: 'o1' }));
      expect(done).toMatchObject({ status: 'completed', output: 2 });
      expect(await store().finish('t1', 'r3', { status: 'completed' }, { owner: 'o1' })).toMatchObject({
        error: { code: 'run-lease-lost' },
      });
      value(await store().requeue('t1', 'r1', 'o1', 0));
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
      // A watch may take effect after the first changes (PostgreSQL's LISTEN connects asynchronously and then
      // calls every watcher once, with no status), so what the contract promises is that a watcher re-reading
      // on each notice sees the final state, not how many notices it got.
      const queueNoticed = signal();
      const sawCancelled = signal();
      const stopQueue = watcher.watchQueue(() => queueNoticed.resolve());
      const stopRun = watcher.watch('t1', 'r1', () => {
        void watcher.get('t1', 'r1').then((read) => {
          if (read.kind === 'ok' && read.value?.status === 'cancelled') sawCancelled.resolve();
        });
      });
      try {
        value(await store().enqueue(contractRun('r1'), job(), { maxQueued: 9 }));
        value(await store().claim(claimReq('o1')));
        value(await store().appendEvent('t1', 'r1', { kind: 'guardrail.violation', data: { n: 1 } }));
        value(await store().finish('t1', 'r1', { status: 'cancelled' }));
        await Promise.all([queueNoticed.promise, sawCancelled.promise]);
      } finally {
        stopQueue();
        stopRun();
      }
    });

    it("tells a transition's status in its notice, and none for a journal entry", async () => {
      const watcher = subject?.peer ?? store();
      value(await store().enqueue(contractRun('r1'), job(), { maxQueued: 9 }));
      const statuses: (string | undefined)[] = [];
      const heard = signal();
      const sawCancelled = signal();
      const stop = watcher.watch('t1', 'r1', (status) => {
        statuses.push(status);
        heard.resolve();
        if (status === 'cancelled') sawCancelled.resolve();
      });
      try {
        // The watch is live once a notice came (PostgreSQL's LISTEN connects asynchronously).
        while (statuses.length === 0) {
          value(await store().appendEvent('t1', 'r1', { kind: 'x', data: 0 }));
          await Promise.race([heard.promise, sleep(50)]);
        }
        value(await store().claim(claimReq('o1')));
        value(await store().appendEvent('t1', 'r1', { kind: 'guardrail.violation', data: { n: 1 } }));
        value(await store().finish('t1', 'r1', { status: 'cancelled' }));
        await sawCancelled.promise;
        expect(statuses.filter((status) => status !== undefined)).toEqual(['running', 'cancelled']);
      } finally {
        stop();
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

    describeApprovalContract(store, () => subject?.peer);
  });
}
