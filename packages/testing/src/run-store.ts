import {
  type ClaimedRun,
  type RunEvent,
  type RunJob,
  type RunOutcome,
  type RunRecord,
  type RunStore,
  type RunStoreError,
  TERMINAL_EVENT_KINDS,
  TERMINAL_RUN_STATUSES,
} from '@kindgi/bindings';
import { err, ok, type Result } from '@kindgi/protocol';

interface Entry {
  seq: number;
  run: RunRecord;
  job: RunJob;
  events: RunEvent[];
  attempts: number;
  availableAt: number;
  lease?: { owner: string; expiresAt: number };
}

/**
 * A `RunStore` in Maps for one process: runs list newest first (insertion order); the cursor is a run id.
 * `now` drives timestamps and leases, so tests can expire a lease without waiting.
 */
export function createInMemoryRunStore(options: { now?: () => Date } = {}): RunStore {
  const now = options.now ?? (() => new Date());
  const entries = new Map<string, Entry>();
  const watchers = new Map<string, Set<() => void>>();
  const queueWatchers = new Set<() => void>();
  let seq = 0;
  const keyOf = (tenantId: string, runId: string) => `${tenantId}\u0000${runId}`;
  const notFound = (runId: string) => err({ code: 'run-not-found' as const, message: `No run '${runId}'.` });
  const changed = (entry: Entry) => {
    for (const listener of watchers.get(keyOf(entry.run.tenantId, entry.run.runId)) ?? []) listener();
  };
  const queued = () => {
    for (const listener of queueWatchers) listener();
  };
  const append = (entry: Entry, kind: string, data: unknown): RunEvent => {
    const event: RunEvent = {
      runId: entry.run.runId,
      sequence: entry.events.length + 1,
      kind,
      data: structuredClone(data),
      at: now().toISOString(),
    };
    entry.events.push(event);
    return event;
  };
  const withoutOutput = (run: RunRecord): RunRecord => {
    const { output: _output, ...rest } = run;
    return structuredClone(rest);
  };
  const finishEntry = (entry: Entry, outcome: RunOutcome): RunRecord => {
    const at = now().toISOString();
    const next: RunRecord = { ...entry.run, status: outcome.status, updatedAt: at, finishedAt: at };
    if (outcome.output !== undefined) {
      next.output = structuredClone(outcome.output);
      next.outputSize = Buffer.byteLength(JSON.stringify(outcome.output));
    }
    if (outcome.error !== undefined) next.error = structuredClone(outcome.error);
    if (outcome.violations !== undefined) next.violations = structuredClone(outcome.violations);
    entry.run = next;
    delete entry.lease;
    // The journal carries the record once; the output lives only on the run (streams re-read it).
    append(entry, TERMINAL_EVENT_KINDS[outcome.status], withoutOutput(next));
    changed(entry);
    return structuredClone(next);
  };
  const leased = (entry: Entry | undefined, owner: string): entry is Entry =>
    entry !== undefined &&
    entry.run.status === 'running' &&
    entry.lease?.owner === owner &&
    entry.lease.expiresAt > now().getTime();

  return {
    async enqueue(run, job, { maxQueued }) {
      const key = keyOf(run.tenantId, run.runId);
      if (entries.has(key)) return err({ code: 'run-already-exists', message: `Run '${run.runId}' exists.` });
      let waiting = 0;
      for (const entry of entries.values())
        if (entry.run.status === 'queued' && entry.job.packId === job.packId) waiting++;
      if (waiting >= maxQueued) {
        return err({ code: 'run-queue-full', message: `The queue of pack '${job.packId}' is full.` });
      }
      const stored: RunRecord = { ...structuredClone(run), status: 'queued' };
      entries.set(key, { seq: ++seq, run: stored, job: structuredClone(job), events: [], attempts: 0, availableAt: 0 });
      queued();
      return ok(structuredClone(stored));
    },
    async get(tenantId, runId) {
      const entry = entries.get(keyOf(tenantId, runId));
      return ok(entry === undefined ? null : structuredClone(entry.run));
    },
    async list(tenantId, filter, cursor, limit) {
      const all = [...entries.values()]
        .filter(({ run }) => run.tenantId === tenantId)
        .filter(({ run }) => filter.status === undefined || run.status === filter.status)
        .filter(({ run }) => filter.toolId === undefined || run.toolId === filter.toolId)
        .sort((a, b) => b.seq - a.seq);
      let start = 0;
      if (cursor !== undefined) {
        const index = all.findIndex(({ run }) => run.runId === cursor);
        if (index < 0) return err({ code: 'run-store-error', message: 'Unknown cursor.' });
        start = index + 1;
      }
      const data = all.slice(start, start + limit).map(({ run }) => withoutOutput(run));
      const last = data[data.length - 1];
      const more = start + data.length < all.length;
      return ok(more && last ? { data, nextCursor: last.runId } : { data });
    },
    async claim({ owner, leaseMs, busyPacks }) {
      const at = now();
      const candidates = [...entries.values()]
        .filter((e) => e.run.status === 'queued' && e.availableAt <= at.getTime() && !busyPacks.includes(e.job.packId))
        .sort((a, b) => a.seq - b.seq);
      const entry = candidates[0];
      if (entry === undefined) return ok(null);
      entry.attempts++;
      entry.lease = { owner, expiresAt: at.getTime() + leaseMs };
      entry.run = { ...entry.run, status: 'running', updatedAt: at.toISOString() };
      if (entry.run.startedAt === undefined) {
        entry.run.startedAt = at.toISOString();
        append(entry, 'run.started', entry.run);
      }
      changed(entry);
      const claimed: ClaimedRun = {
        run: structuredClone(entry.run),
        job: structuredClone(entry.job),
        owner,
        attempt: entry.attempts,
      };
      return ok(claimed);
    },
    async heartbeat(tenantId, runId, owner, leaseMs) {
      const entry = entries.get(keyOf(tenantId, runId));
      if (!leased(entry, owner)) return ok(false);
      entry.lease = { owner, expiresAt: now().getTime() + leaseMs };
      return ok(true);
    },
    async requeue(tenantId, runId, owner, delayMs) {
      const entry = entries.get(keyOf(tenantId, runId));
      if (!leased(entry, owner)) return err({ code: 'run-lease-lost', message: `The lease on '${runId}' is lost.` });
      delete entry.lease;
      entry.availableAt = now().getTime() + delayMs;
      entry.run = { ...entry.run, status: 'queued', updatedAt: now().toISOString() };
      changed(entry);
      queued();
      return ok(undefined);
    },
    async finish(tenantId, runId, outcome, opts = {}): Promise<Result<RunRecord, RunStoreError>> {
      const entry = entries.get(keyOf(tenantId, runId));
      if (entry === undefined) return notFound(runId);
      if (opts.owner !== undefined) {
        if (!leased(entry, opts.owner))
          return err({ code: 'run-lease-lost', message: `The lease on '${runId}' is lost.` });
      } else if (TERMINAL_RUN_STATUSES.has(entry.run.status)) {
        return err({
          code: 'run-already-terminal',
          message: `Run '${runId}' has finished.`,
          run: structuredClone(entry.run),
        });
      }
      return ok(finishEntry(entry, outcome));
    },
    async expireLeases(message) {
      const at = now().getTime();
      const expired = [...entries.values()].filter(
        (e) => e.run.status === 'running' && e.lease !== undefined && e.lease.expiresAt <= at,
      );
      return ok(expired.map((e) => finishEntry(e, { status: 'failed', error: { code: 'run-interrupted', message } })));
    },
    async appendEvent(tenantId, runId, event) {
      const entry = entries.get(keyOf(tenantId, runId));
      if (entry === undefined) return notFound(runId);
      const stored = append(entry, event.kind, event.data);
      changed(entry);
      return ok(structuredClone(stored));
    },
    async listEvents(tenantId, runId, afterSequence) {
      const entry = entries.get(keyOf(tenantId, runId));
      if (entry === undefined) return notFound(runId);
      return ok(structuredClone(entry.events.filter((event) => event.sequence > afterSequence)));
    },
    watch(tenantId, runId, onChange) {
      const key = keyOf(tenantId, runId);
      let set = watchers.get(key);
      if (set === undefined) {
        set = new Set();
        watchers.set(key, set);
      }
      set.add(onChange);
      return () => {
        set.delete(onChange);
        if (set.size === 0) watchers.delete(key);
      };
    },
    watchQueue(onQueued) {
      queueWatchers.add(onQueued);
      return () => queueWatchers.delete(onQueued);
    },
  };
}
