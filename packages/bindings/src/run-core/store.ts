import { err, ok, type Result } from '@kindgi/protocol';
import { clampListLimit, decodeListCursor, encodeListCursor } from '../blob-rules/index.js';
import type { RunJob, RunRecord, RunStore, RunStoreError } from '../runs.js';
import { approvalMethods } from './approvals.js';
import {
  attemptRunAsync,
  refuseRun,
  runExists,
  runInvalidCursor,
  runNotFound,
  runQueueFull,
  runTenantQueueFull,
  unwrapRun,
} from './refusals.js';
import type { RunRows } from './rows.js';
import {
  claimRun,
  finishRun,
  interruptRun,
  queuedRun,
  recordOf,
  requeueRun,
  runJson,
  withOutput,
} from './transitions.js';

/** A `list` cursor: the `seq` the next page starts below, in the format blob listings use too. */
export function decodeRunCursor(cursor: string): Result<number, RunStoreError> {
  const seq = decodeListCursor(cursor);
  if (seq !== undefined) return ok(seq);
  // The PostgreSQL store's earlier cursors were the bare `seq`.
  return /^\d{1,15}$/.test(cursor) ? ok(Number(cursor)) : err(runInvalidCursor());
}

/** The `RunStore` over `rows`; `now` stamps records and events (leases use the adapter's clock). */
export function createRunStore(rows: RunRows, now: () => number = Date.now): RunStore {
  const stamp = () => new Date(now()).toISOString();
  const decode = (cursor: string) => unwrapRun(decodeRunCursor(cursor));
  return { ...readers(rows), ...writers(rows, stamp), ...approvalMethods(rows, stamp, decode) };
}

type Readers = Pick<RunStore, 'get' | 'list' | 'heartbeat' | 'listEvents' | 'watch' | 'watchQueue'>;

function readers(rows: RunRows): Readers {
  return {
    get: (tenantId, runId) =>
      attemptRunAsync(async () => {
        const row = await rows.read(tenantId, runId);
        return row === undefined ? null : withOutput(recordOf(row.record), row.output);
      }),
    list: (tenantId, filter, cursor, limit) =>
      attemptRunAsync(async () => {
        const size = clampListLimit(limit);
        const below = cursor === undefined ? undefined : unwrapRun(decodeRunCursor(cursor));
        const found = await rows.page(tenantId, filter, below, size + 1);
        const data = found.slice(0, size).map((row) => recordOf(row.record));
        const last = found[size - 1];
        return found.length > size && last !== undefined ? { data, nextCursor: encodeListCursor(last.seq) } : { data };
      }),
    heartbeat: (tenantId, runId, owner, leaseMs) =>
      attemptRunAsync(() => rows.heartbeat(tenantId, runId, owner, leaseMs)),
    listEvents: (tenantId, runId, after) =>
      attemptRunAsync(async () => {
        const events = (await rows.events(tenantId, runId, after)) ?? refuseRun(runNotFound(runId));
        return events.map(({ sequence, kind, data, at }) => ({ runId, sequence, kind, data: JSON.parse(data), at }));
      }),
    watch: (tenantId, runId, onChange) => rows.watch(tenantId, runId, onChange),
    watchQueue: (onQueued) => rows.watchQueue(onQueued),
  };
}

type Writers = Omit<
  RunStore,
  keyof Readers | 'suspend' | 'getApproval' | 'listApprovals' | 'completeApproval' | 'suspendedTurn'
>;

function writers(rows: RunRows, stamp: () => string): Writers {
  const changed = (run: RunRecord) => rows.changed?.(run.tenantId, run.runId, run.status);
  return {
    enqueue: (run, job, limits) =>
      attemptRunAsync(async () => {
        const record = queuedRun(run);
        const inserted = await rows.insert(record, job, limits);
        if (inserted === 'exists') refuseRun(runExists(run.runId));
        if (inserted === 'full') refuseRun(runQueueFull(job.packId));
        if (inserted === 'tenant-full') {
          refuseRun(runTenantQueueFull(run.tenantId, job.packId, limits.maxQueuedPerTenant ?? limits.maxQueued));
        }
        rows.queued?.();
        return record;
      }),
    claim: ({ owner, leaseMs, busyPacks, servedPacks, agents }) =>
      attemptRunAsync(async () => {
        let job = '';
        const filter = {
          busyPacks,
          ...(servedPacks === undefined ? {} : { servedPacks }),
          ...(agents === undefined ? {} : { agents }),
        };
        const change = await rows.claim(filter, (row) => {
          job = row.job;
          return claimRun(row, { owner, ms: leaseMs }, stamp());
        });
        if (change === undefined) return null;
        changed(change.run);
        return { run: change.run, job: JSON.parse(job) as RunJob, owner, attempt: change.attempts };
      }),
    requeue: (tenantId, runId, owner, delayMs) =>
      attemptRunAsync(async () => {
        await rows.update(tenantId, runId, (row) => unwrapRun(requeueRun(row, runId, owner, delayMs, stamp())));
        rows.changed?.(tenantId, runId, 'queued');
        rows.queued?.();
      }),
    finish: (tenantId, runId, outcome, options = {}) =>
      attemptRunAsync(async () => {
        const step = (row: Parameters<typeof finishRun>[0]) =>
          unwrapRun(finishRun(row, runId, outcome, options.owner, stamp()));
        const change = await rows.update(tenantId, runId, step);
        changed(change.run);
        return withOutput(change.run, change.output);
      }),
    expireLeases: (message, options = {}) =>
      attemptRunAsync(async () => {
        const step = (row: Parameters<typeof interruptRun>[0]) => unwrapRun(interruptRun(row, message, stamp()));
        const changes = await rows.expire(options.keep ?? [], step);
        for (const change of changes) changed(change.run);
        return changes.map((change) => change.run);
      }),
    appendEvent: (tenantId, runId, { kind, data }) =>
      attemptRunAsync(async () => {
        const [text, at] = [runJson(data), stamp()];
        const sequence =
          (await rows.append(tenantId, runId, { kind, data: text, at })) ?? refuseRun(runNotFound(runId));
        rows.changed?.(tenantId, runId);
        return { runId, sequence, kind, data: JSON.parse(text), at };
      }),
  };
}
