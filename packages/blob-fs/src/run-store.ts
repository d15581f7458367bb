import {
  attemptRun,
  createLocalRunWatchers,
  createRunStore,
  interruptRun,
  type PagedRun,
  type RunChange,
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

// Rows as the transitions read them; a running run without a lease (a database from before leases) has none.
const ROWS = 'SELECT *, coalesce(lease_expires_at, 0) > @now AS lease_live FROM runs';
const SAVE = `UPDATE runs SET status = @status, record = @record, output = @output, attempts = @attempts,
    available_at = @now + @delayMs, lease_owner = @owner, lease_expires_at = @now + @leaseMs
  WHERE tenant_id = @tenantId AND run_id = @runId`;

function prepareStatements(db: KindgiDatabase) {
  const prepare = <R>(text: string) => db.prepare<Record<string, unknown>[], R>(text);
  return {
    select: prepare<RunRow>(`${ROWS} WHERE tenant_id = @tenantId AND run_id = @runId`),
    claimable: prepare<RunRow>(
      `${ROWS} WHERE status = 'queued' AND available_at <= @now
         AND pack_id NOT IN (SELECT value FROM json_each(@busy)) ORDER BY seq LIMIT 1`,
    ),
    expired: prepare<RunRow>(`${ROWS} WHERE status = 'running' AND coalesce(lease_expires_at, 0) <= @by ORDER BY seq`),
    save: prepare(SAVE),
    renew: prepare(
      `UPDATE runs SET lease_expires_at = @now + @leaseMs WHERE tenant_id = @tenantId AND run_id = @runId
         AND status = 'running' AND lease_owner = @owner AND lease_expires_at > @now`,
    ),
    countQueued: prepare<{ n: number }>("SELECT count(*) AS n FROM runs WHERE pack_id = @packId AND status = 'queued'"),
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

/** The rows port on `db`, and `failExpired` for leases that ran out by `by` (every lease: `MAX_SAFE_INTEGER`). */
function sqliteRows(db: KindgiDatabase, now: () => number) {
  const q = prepareStatements(db);
  const atomic =
    <A extends unknown[], T>(work: (...args: A) => T) =>
    (...args: A): T =>
      db.transaction(work).immediate(...args);
  const byId = (tenantId: string, runId: string) => q.select.get({ now: now(), tenantId, runId });
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
  const failExpired = atomic((by: number, step: (row: RunRow) => RunChange) =>
    q.expired.all({ now: now(), by }).map((row) => save(step(row))),
  );
  const rows: RunRows = {
    ...createLocalRunWatchers(),
    insert: atomic((record, job, maxQueued) => {
      const { tenantId, runId, toolId } = record;
      if (byId(tenantId, runId) !== undefined) return 'exists';
      if ((q.countQueued.get({ packId: job.packId })?.n ?? 0) >= maxQueued) return 'full';
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
    claim: atomic((busyPacks, step) => {
      const row = q.claimable.get({ now: now(), busy: JSON.stringify(busyPacks) });
      return row && save(step(row));
    }),
    expire: (step) => failExpired(now(), step),
    heartbeat: (tenantId, runId, owner, leaseMs) =>
      q.renew.run({ now: now(), leaseMs, tenantId, runId, owner }).changes === 1,
    append: atomic(append),
    events: (tenantId, runId, after) => byId(tenantId, runId) && q.events.all({ tenantId, runId, after }),
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
  db.exec("CREATE INDEX IF NOT EXISTS runs_queue ON runs (pack_id, seq) WHERE status = 'queued'");
  const { rows, failExpired } = sqliteRows(db, now);
  return {
    ...createRunStore(rows, now),
    database: db,
    failInterruptedRuns(message = 'The server stopped while the run was running; it may have partly run.') {
      return attemptRun(() => {
        const at = new Date(now()).toISOString();
        const changes = failExpired(Number.MAX_SAFE_INTEGER, (row) => unwrapRun(interruptRun(row, message, at)));
        for (const { run } of changes) rows.changed?.(run.tenantId, run.runId);
        return changes.map(({ run }) => run);
      });
    },
    close() {
      if (owned) db.close();
    },
  };
}
