import {
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

// A stored run as the database stores keep it (JSON text), so no caller ever shares an object with the store.
interface Entry extends Omit<RunRow, 'lease_live'> {
  seq: number;
  packId: string;
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
    rowOf: (entry: Entry): RunRow => ({ ...entry, lease_live: entry.leaseExpiresAt > now() }),
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
 * A `RunStore` in Maps for one process: runs list newest first (insertion order). `now` drives timestamps
 * and leases, so tests can expire a lease without waiting.
 */
export function createInMemoryRunStore(options: { now?: () => Date } = {}): RunStore {
  const now = () => (options.now?.() ?? new Date()).getTime();
  const table = entryTable(now);
  const { get, sorted, rowOf, save } = table;
  const fresh = { output: null, attempts: 0, availableAt: 0, lease_owner: null, leaseExpiresAt: 0 };
  return createRunStore(
    {
      ...createLocalRunWatchers(),
      insert(record, job, maxQueued) {
        if (get(record.tenantId, record.runId) !== undefined) return 'exists';
        if (sorted((e) => e.packId === job.packId && e.status === 'queued').length >= maxQueued) return 'full';
        const stored = { status: 'queued', record: recordJson(record), job: runJson(job), packId: job.packId };
        table.add(record.tenantId, record.runId, { ...fresh, ...stored, events: [] });
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
      claim(busyPacks, step) {
        const at = now();
        const [entry] = sorted((e) => e.status === 'queued' && e.availableAt <= at && !busyPacks.includes(e.packId));
        return entry && save(entry, step(rowOf(entry)));
      },
      expire(step) {
        const expired = sorted((entry) => entry.status === 'running' && entry.leaseExpiresAt <= now());
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
    },
    now,
  );
}
