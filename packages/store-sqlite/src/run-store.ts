import {
  attemptRun,
  createLocalRunWatchers,
  createRunStore,
  interruptRun,
  type PagedRun,
  type RunChange,
  type RunKey,
  type RunRecord,
  type RunRow,
  type RunRows,
  type RunStore,
  type RunStoreError,
  recordJson,
  runJson,
  type StoredRunEvent,
  unwrapRun,
} from '@kindgi/bindings';
import type { Result } from '@kindgi/protocol';
import { sqliteApprovalRows } from './approval-rows.js';
import { type DatabaseSource, type KindgiDatabase, resolveDatabase } from './database.js';

/** A `RunStore` whose runs, queue and journals survive restarts; `close()` closes a database it opened. */
export interface SqliteRunStore extends RunStore {
  readonly database: KindgiDatabase;
  /**
   * Fails every run still `running` as `run-interrupted`, journaling `run.failed` so stream followers end.
   * Call it when a process takes over the data directory: the process that held those leases is gone (the
   * directory is locked to one process), so none will ever finish. Queued runs stay queued.
   */
  failInterruptedRuns(message?: string): Result<RunRecord[], RunStoreError>;
  close(): void;
}

// What the run store adds to the shared schema (database.ts): the per-pack queue, the per-tenant queue the
// fair claim reads, and each tenant's last claim (its `turn`, from one counter).
const SCHEMA = `
CREATE INDEX IF NOT EXISTS runs_queue ON runs (pack_id, seq) WHERE status = 'queued';
CREATE INDEX IF NOT EXISTS runs_tenant_queue ON runs (tenant_id, seq) WHERE status = 'queued';
CREATE TABLE IF NOT EXISTS run_turns (tenant_id TEXT PRIMARY KEY, turn INTEGER NOT NULL);
`;

const ROWS = 'SELECT * FROM runs';
// The oldest claimable run of each tenant, ranked by the tenant's running runs, then its last claim.
const CLAIMABLE = `WITH heads AS (
    SELECT tenant_id, min(seq) AS seq FROM runs
    WHERE status = 'queued' AND available_at <= @now
      AND pack_id NOT IN (SELECT value FROM json_each(@busy))
      AND (@served IS NULL OR pack_id IN (SELECT value FROM json_each(@served)))
      AND (@agents = 1 OR json_extract(job, '$.agent') IS NULL)
    GROUP BY tenant_id
  )
  SELECT runs.* FROM heads JOIN runs ON runs.seq = heads.seq
  ORDER BY (SELECT count(*) FROM runs AS r WHERE r.tenant_id = heads.tenant_id AND r.status = 'running'),
    coalesce((SELECT turn FROM run_turns AS t WHERE t.tenant_id = heads.tenant_id), 0), heads.seq
  LIMIT 1`;
// A running run without a lease (a database from before leases) has expired.
const EXPIRED = `${ROWS} WHERE status = 'running' AND coalesce(lease_expires_at, 0) <= @by
    AND NOT EXISTS (SELECT 1 FROM json_each(@keep) AS k
      WHERE json_extract(k.value, '$[0]') = runs.tenant_id AND json_extract(k.value, '$[1]') = runs.run_id)
  ORDER BY seq`;
const SAVE = `UPDATE runs SET status = @status, record = @record, output = @output, attempts = @attempts,
    available_at = @now + @delayMs, lease_owner = @owner, lease_expires_at = @now + @leaseMs
  WHERE tenant_id = @tenantId AND run_id = @runId`;

function prepareStatements(db: KindgiDatabase) {
  const prepare = <R>(text: string) => db.prepare<Record<string, unknown>[], R>(text);
  return {
    select: prepare<RunRow>(`${ROWS} WHERE tenant_id = @tenantId AND run_id = @runId`),
    claimable: prepare<RunRow & { tenant_id: string }>(CLAIMABLE),
    takeTurn: prepare(
      `INSERT INTO run_turns (tenant_id, turn) VALUES (@tenantId, (SELECT coalesce(max(turn), 0) + 1 FROM run_turns))
       ON CONFLICT (tenant_id) DO UPDATE SET turn = excluded.turn`,
    ),
    expired: prepare<RunRow>(EXPIRED),
    save: prepare(SAVE),
    renew: prepare(
      `UPDATE runs SET lease_expires_at = @now + @leaseMs WHERE tenant_id = @tenantId AND run_id = @runId
         AND status = 'running' AND lease_owner = @owner`,
    ),
    countQueued: prepare<{ n: number; mine: number }>(
      `SELECT count(*) AS n, count(*) FILTER (WHERE tenant_id = @tenantId) AS mine FROM runs
       WHERE pack_id = @packId AND status = 'queued'`,
    ),
    insert: prepare(
      `INSERT INTO runs (tenant_id, run_id, tool_id, status, record, pack_id, job)
       VALUES (@tenantId, @runId, @toolId, 'queued', @record, @packId, @job)`,
    ),
    bump: prepare<{ last_event: number }>(
      'UPDATE runs SET last_event = last_event + 1 WHERE tenant_id = @tenantId AND run_id = @runId RETURNING last_event',
    ),
    insertEvent: prepare(
      `INSERT INTO run_events (tenant_id, run_id, sequence, kind, data, at)
       VALUES (@tenantId, @runId, @sequence, @kind, @data, @at)`,
    ),
    events: prepare<StoredRunEvent>(
      `SELECT sequence, kind, data, at FROM run_events WHERE tenant_id = @tenantId AND run_id = @runId
         AND sequence > @after ORDER BY sequence`,
    ),
  };
}

/**
 * The rows port on `db`, and `failExpired` for leases that ran out by `by` (every lease: `MAX_SAFE_INTEGER`)
 * except the runs in `keep`.
 */
function sqliteRows(db: KindgiDatabase, now: () => number) {
  const q = prepareStatements(db);
  const atomic =
    <A extends unknown[], T>(work: (...args: A) => T) =>
    (...args: A): T =>
      db.transaction(work).immediate(...args);
  const byId = (tenantId: string, runId: string) => q.select.get({ tenantId, runId });
  const append = (tenantId: string, runId: string, event: Omit<StoredRunEvent, 'sequence'>) => {
    const sequence = q.bump.get({ tenantId, runId })?.last_event;
    if (sequence !== undefined) q.insertEvent.run({ tenantId, runId, sequence, ...event });
    return sequence;
  };
  const save = (change: RunChange): RunChange => {
    const { run, lease } = change;
    const record = recordJson(run);
    q.save.run({
      tenantId: run.tenantId,
      runId: run.runId,
      status: run.status,
      record,
      output: change.output ?? null,
      attempts: change.attempts,
      delayMs: change.delayMs ?? 0,
      owner: lease?.owner ?? null,
      leaseMs: lease?.ms ?? null,
      now: now(),
    });
    if (change.journal !== undefined)
      append(run.tenantId, run.runId, { kind: change.journal, data: record, at: run.updatedAt });
    return change;
  };
  const failExpired = atomic((by: number, keep: readonly RunKey[], step: (row: RunRow) => RunChange) => {
    const kept = JSON.stringify(keep.map((key) => [key.tenantId, key.runId]));
    return q.expired.all({ by, keep: kept }).map((row) => save(step(row)));
  });
  const rows: RunRows = {
    ...createLocalRunWatchers(),
    insert: atomic((record, job, { maxQueued, maxQueuedPerTenant }) => {
      const { tenantId, runId, toolId } = record;
      if (byId(tenantId, runId) !== undefined) return 'exists';
      const queued = q.countQueued.get({ packId: job.packId, tenantId }) ?? { n: 0, mine: 0 };
      if (maxQueuedPerTenant !== undefined && queued.mine >= maxQueuedPerTenant) return 'tenant-full';
      if (queued.n >= maxQueued) return 'full';
      q.insert.run({ tenantId, runId, toolId, record: recordJson(record), packId: job.packId, job: runJson(job) });
      return 'inserted';
    }),
    read: byId,
    page: (tenantId, filter, below, count) => {
      const clauses = ['tenant_id = ?', 'seq < ?'];
      const params: unknown[] = [tenantId, below ?? Number.MAX_SAFE_INTEGER];
      for (const [column, value] of [
        ['status', filter.status],
        ['tool_id', filter.toolId],
      ] as const) {
        if (value === undefined) continue;
        clauses.push(`${column} = ?`);
        params.push(value);
      }
      const sql = `SELECT seq, record FROM runs WHERE ${clauses.join(' AND ')} ORDER BY seq DESC LIMIT ?`;
      return db.prepare<unknown[], PagedRun>(sql).all(...params, count);
    },
    update: atomic((tenantId, runId, step) => save(step(byId(tenantId, runId)))),
    claim: atomic(({ busyPacks, servedPacks, agents }, step) => {
      const served = servedPacks === undefined ? null : JSON.stringify(servedPacks);
      const filter = { busy: JSON.stringify(busyPacks), served, agents: agents === false ? 0 : 1 };
      const row = q.claimable.get({ now: now(), ...filter });
      if (row === undefined) return undefined;
      q.takeTurn.run({ tenantId: row.tenant_id });
      return save(step(row));
    }),
    expire: (keep, step) => failExpired(now(), keep, step),
    heartbeat: (tenantId, runId, owner, leaseMs) =>
      q.renew.run({ now: now(), leaseMs, tenantId, runId, owner }).changes === 1,
    append: atomic(append),
    events: (tenantId, runId, after) => byId(tenantId, runId) && q.events.all({ tenantId, runId, after }),
    ...sqliteApprovalRows(db, { read: byId, save, atomic }),
  };
  return { rows, failExpired };
}

/**
 * A durable `RunStore` on the shared Kindgi database. Runs list newest first by insertion; each run's events
 * get consecutive sequence numbers from 1. Every transition runs in an immediate transaction, so a run is
 * claimed once and its terminal event journaled with its status. One process uses the database at a time, so
 * watchers are notified in process.
 */
export function createSqliteRunStore(source: DatabaseSource, now: () => number = Date.now): SqliteRunStore {
  const { db, owned } = resolveDatabase(source);
  db.exec(SCHEMA);
  const { rows, failExpired } = sqliteRows(db, now);
  return {
    ...createRunStore(rows, now),
    database: db,
    failInterruptedRuns(message = 'The server stopped while the run was running; it may have partly run.') {
      return attemptRun(() => {
        const at = new Date(now()).toISOString();
        const changes = failExpired(Number.MAX_SAFE_INTEGER, [], (row) => unwrapRun(interruptRun(row, message, at)));
        for (const { run } of changes) rows.changed?.(run.tenantId, run.runId);
        return changes.map(({ run }) => run);
      });
    },
    close() {
      if (owned) db.close();
    },
  };
}
