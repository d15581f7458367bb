import {
  type ClaimFilter,
  createLocalRunWatchers,
  createRunStore,
  holdsLease,
  type RunChange,
  type RunRow,
  type RunStore,
  recordJson,
  recordOf,
  runJson,
  type StoredRunEvent,
} from '@kindgi/bindings';
import { memoryApprovalRows } from './run-store-approvals.js';

// A stored run as the database stores keep it (JSON text), so no caller ever shares an object with the store.
interface Entry extends RunRow {
  seq: number;
  tenantId: string;
  packId: string;
  /** An agent run (its job has `agent`): a claim with `agents: false` skips it. */
  agent: boolean;
  availableAt: number;
  leaseExpiresAt: number;
  events: StoredRunEvent[];
}

/** The runs of one store by tenant and id, and the row and write steps every method shares. */
function entryTable(now: () => number) {
  const entries = new Map<string, Entry>();
  const keyOf = (tenantId: string, runId: string) => `${tenantId}\u0000${runId}`;
  const append = (entry: Entry, event: Omit<StoredRunEvent, 'sequence'>) =>
    entry.events.push({ ...event, sequence: entry.events.length + 1 });
  return {
    append,
    get: (tenantId: string, runId: string) => entries.get(keyOf(tenantId, runId)),
    add: (tenantId: string, runId: string, entry: Omit<Entry, 'seq'>) =>
      entries.set(keyOf(tenantId, runId), { ...entry, seq: entries.size + 1 }),
    /** The entries `keep` selects, oldest first. */
    sorted: (keep: (entry: Entry) => boolean) => [...entries.values()].filter(keep).sort((a, b) => a.seq - b.seq),
    rowOf: (entry: Entry): RunRow => ({ ...entry }),
    save(entry: Entry, change: RunChange): RunChange {
      const { run, lease } = change;
      Object.assign(entry, {
        status: run.status,
        record: recordJson(run),
        output: change.output ?? null,
        attempts: change.attempts,
        availableAt: now() + (change.delayMs ?? 0),
        lease_owner: lease?.owner ?? null,
        leaseExpiresAt: lease === undefined ? 0 : now() + lease.ms,
      });
      if (change.journal !== undefined) append(entry, { kind: change.journal, data: entry.record, at: run.updatedAt });
      return change;
    },
  };
}

/**
 * The fair claim order: of the claimable entries (oldest first), the oldest of the tenant with the fewest
 * running runs, then of the tenant whose last claim (`turns`) is oldest.
 */
function nextFairly(claimable: Entry[], running: Entry[], turns: ReadonlyMap<string, number>): Entry | undefined {
  const load = new Map<string, number>();
  for (const { tenantId } of running) load.set(tenantId, (load.get(tenantId) ?? 0) + 1);
  let best: { entry: Entry; load: number; turn: number } | undefined;
  for (const entry of claimable) {
    const [mine, turn] = [load.get(entry.tenantId) ?? 0, turns.get(entry.tenantId) ?? 0];
    if (best === undefined || mine < best.load || (mine === best.load && turn < best.turn)) {
      best = { entry, load: mine, turn };
    }
  }
  return best?.entry;
}

/**
 * A `RunStore` in Maps for one process: runs list newest first (insertion order). `now` drives timestamps
 * and leases, so tests can expire a lease without waiting.
 */
export function createInMemoryRunStore(options: { now?: () => Date } = {}): RunStore {
  const now = () => (options.now?.() ?? new Date()).getTime();
  const table = entryTable(now);
  const { get, sorted, rowOf, save } = table;
  const turns = new Map<string, number>();
  let lastTurn = 0;
  const claimable = ({ busyPacks, servedPacks, agents }: ClaimFilter, at: number) =>
    sorted(
      (e) =>
        e.status === 'queued' &&
        e.availableAt <= at &&
        !busyPacks.includes(e.packId) &&
        (servedPacks === undefined || servedPacks.includes(e.packId)) &&
        (agents !== false || !e.agent),
    );
  const fresh = { output: null, attempts: 0, availableAt: 0, lease_owner: null, leaseExpiresAt: 0 };
  return createRunStore(
    {
      ...createLocalRunWatchers(),
      insert(record, job, { maxQueued, maxQueuedPerTenant }) {
        if (get(record.tenantId, record.runId) !== undefined) return 'exists';
        const queued = sorted((e) => e.packId === job.packId && e.status === 'queued');
        const mine = queued.filter((e) => e.tenantId === record.tenantId).length;
        if (maxQueuedPerTenant !== undefined && mine >= maxQueuedPerTenant) return 'tenant-full';
        if (queued.length >= maxQueued) return 'full';
        const stored = { status: 'queued', record: recordJson(record), job: runJson(job), packId: job.packId };
        const agent = job.agent !== undefined;
        const tenantId = record.tenantId;
        table.add(tenantId, record.runId, { ...fresh, ...stored, agent, tenantId, events: [] });
        return 'inserted';
      },
      read(tenantId, runId) {
        const entry = get(tenantId, runId);
        return entry && rowOf(entry);
      },
      page: (tenantId, filter, below, count) =>
        sorted((entry) => {
          const run = recordOf(entry.record);
          if (run.tenantId !== tenantId || entry.seq >= (below ?? Number.POSITIVE_INFINITY)) return false;
          return (filter.status ?? run.status) === run.status && (filter.toolId ?? run.toolId) === run.toolId;
        })
          .reverse()
          .slice(0, count),
      update(tenantId, runId, step) {
        const entry = get(tenantId, runId);
        const change = step(entry && rowOf(entry));
        return entry === undefined ? change : save(entry, change);
      },
      claim(filter, step) {
        const entry = nextFairly(
          claimable(filter, now()),
          sorted((e) => e.status === 'running'),
          turns,
        );
        if (entry === undefined) return undefined;
        turns.set(entry.tenantId, ++lastTurn);
        return save(entry, step(rowOf(entry)));
      },
      expire(keep, step) {
        const kept = new Set(keep.map((key) => `${key.tenantId}\u0000${key.runId}`));
        const expired = sorted(
          (entry) =>
            entry.status === 'running' &&
            entry.leaseExpiresAt <= now() &&
            !kept.has(`${entry.tenantId}\u0000${recordOf(entry.record).runId}`),
        );
        return expired.map((entry) => save(entry, step(rowOf(entry))));
      },
      heartbeat(tenantId, runId, owner, leaseMs) {
        const entry = get(tenantId, runId);
        const holds = entry !== undefined && holdsLease(rowOf(entry), owner);
        if (holds) entry.leaseExpiresAt = now() + leaseMs;
        return holds;
      },
      append(tenantId, runId, event) {
        const entry = get(tenantId, runId);
        return entry && table.append(entry, event);
      },
      events: (tenantId, runId, after) => get(tenantId, runId)?.events.filter((event) => event.sequence > after),
      ...memoryApprovalRows({
        read: (tenantId, runId) => {
          const entry = get(tenantId, runId);
          return entry && rowOf(entry);
        },
        save: (change) => {
          const entry = get(change.run.tenantId, change.run.runId);
          return entry === undefined ? change : save(entry, change);
        },
      }),
    },
    now,
  );
}
