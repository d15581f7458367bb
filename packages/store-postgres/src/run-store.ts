import {
  type ClaimFilter,
  createRunStore,
  type PagedRun,
  type RunChange,
  type RunFilter,
  type RunJob,
  type RunKey,
  type RunQueueLimits,
  type RunRecord,
  type RunRow,
  type RunStatus,
  type RunStore,
  recordJson,
  runJson,
  type StoredRunEvent,
} from '@kindgi/bindings';
import type pg from 'pg';
import { postgresApprovalRows } from './approval-rows.js';
import { type PostgresListener, RUN_EVENTS_CHANNEL, RUN_QUEUE_CHANNEL } from './notify.js';
import type { PostgresPool } from './pool.js';
import { inTransaction, NOW_MS, sql } from './tx.js';

/** A statement made from another by replacing one part of it; a part that is not there fails at load. */
function rewrite(text: string, part: string, by: string): string {
  if (!text.includes(part)) throw new Error(`statement rewrite: ${JSON.stringify(part)} not found`);
  return text.replace(part, by);
}

const ROW = 'status, record, output, job, attempts, lease_owner';
const BY_ID = `SELECT ${ROW} FROM runs WHERE tenant_id = $1 AND run_id = $2`;
const BY_ID_VERSIONED = `SELECT ${ROW}, xmin::text AS version FROM runs WHERE tenant_id = $1 AND run_id = $2`;
// A queued run (of `runs` as `r`) whose retry delay is over, of a pack the claimer has room for ($1: the
// busy packs) and serves ($2: its packs, null for any), and no agent run unless the claimer runs them ($3).
const claimable = (r: string) =>
  `${r}.status = 'queued' AND ${r}.available_at <= ${NOW_MS} AND NOT (${r}.pack_id = ANY($1::text[]))
    AND ($2::text[] IS NULL OR ${r}.pack_id = ANY($2::text[]))
    AND ($3::boolean OR ${r}.job::jsonb -> 'agent' IS NULL)`;
// Running runs whose lease ran out, but for those the sweeping executor still holds ($1, $2: their keys).
const EXPIRED = `status = 'running' AND lease_expires_at <= ${NOW_MS}
  AND (tenant_id, run_id) NOT IN (SELECT * FROM unnest($1::text[], $2::text[]))`;

// The fair claim in one statement. `tenants` walks the tenants with queued runs through the index one at a
// time (a loose index scan: cost by tenants, not by queued runs); `heads` is each one's oldest claimable run
// with the tenant's running runs and last claim; the first of them by that rank is locked, skipping rows
// another server is claiming. The outer WHERE repeats the claim conditions so a row that changed since the
// snapshot is re-checked once locked.
const CLAIM = `WITH RECURSIVE tenants (tenant_id) AS (
    (SELECT tenant_id FROM runs WHERE status = 'queued' ORDER BY tenant_id LIMIT 1)
    UNION ALL
    SELECT (SELECT n.tenant_id FROM runs n WHERE n.status = 'queued' AND n.tenant_id > t.tenant_id
      ORDER BY n.tenant_id LIMIT 1)
    FROM tenants t WHERE t.tenant_id IS NOT NULL
  ), heads AS (
    SELECT head.seq,
      (SELECT count(*) FROM runs x WHERE x.tenant_id = t.tenant_id AND x.status = 'running') AS running,
      COALESCE((SELECT u.turn FROM run_turns u WHERE u.tenant_id = t.tenant_id), 0) AS turn
    FROM tenants t CROSS JOIN LATERAL (
      SELECT q.seq FROM runs q WHERE q.tenant_id = t.tenant_id AND ${claimable('q')} ORDER BY q.seq LIMIT 1
    ) head
  )
  SELECT ${ROW} FROM runs r JOIN heads h ON r.seq = h.seq
  WHERE ${claimable('r')}
  ORDER BY h.running, h.turn, h.seq
  LIMIT 1 FOR UPDATE OF r SKIP LOCKED`;
const TAKE_TURN = `INSERT INTO run_turns (tenant_id, turn) VALUES ($1, nextval('run_turn_seq'))
  ON CONFLICT (tenant_id) DO UPDATE SET turn = EXCLUDED.turn`;

// A transition and its journal entry (the record is its data) in one statement, announced to every server.
const SAVE = `WITH saved AS (
    UPDATE runs SET status = $3, record = $4, output = $5, output_size = $6, attempts = $7, lease_owner = $8,
      lease_expires_at = ${NOW_MS} + $9, available_at = ${NOW_MS} + $10, last_event = last_event + $11
    WHERE tenant_id = $1 AND run_id = $2 RETURNING last_event
  ), journal AS (
    INSERT INTO run_events (tenant_id, run_id, sequence, kind, data, at)
    SELECT $1, $2, last_event, $12, $4, $13 FROM saved WHERE $11 = 1
  )
  SELECT pg_notify($14, $15), CASE WHEN $3 = 'queued' THEN pg_notify($16, '') END FROM saved`;

const APPEND = `WITH bumped AS (
    UPDATE runs SET last_event = last_event + 1 WHERE tenant_id = $1 AND run_id = $2 RETURNING last_event
  ), inserted AS (
    INSERT INTO run_events (tenant_id, run_id, sequence, kind, data, at)
    SELECT $1, $2, last_event, $3, $4, $5 FROM bumped RETURNING sequence
  )
  SELECT sequence, pg_notify($6, $7) FROM inserted`;

/** The values of `SAVE` (and `SAVE_IF`) for a change. */
function saveValues(change: RunChange): unknown[] {
  const { run, lease, journal } = change;
  return [
    run.tenantId,
    run.runId,
    run.status,
    recordJson(run),
    change.output ?? null,
    run.outputSize ?? null,
    change.attempts,
    lease?.owner ?? null,
    lease?.ms ?? null,
    change.delayMs ?? 0,
    journal === undefined ? 0 : 1,
    journal ?? null,
    run.updatedAt,
    RUN_EVENTS_CHANNEL,
    // The status after the change rides along (`RunStore.watch`): a watcher waiting for others need not re-read.
    JSON.stringify([run.tenantId, run.runId, run.status]),
    RUN_QUEUE_CHANNEL,
  ];
}

async function save(client: pg.PoolClient, change: RunChange): Promise<RunChange> {
  await sql(client, SAVE, saveValues(change));
  return change;
}

// `SAVE` of a row only while it is the version that was read (`xmin`, the transaction that wrote it): one
// statement, atomic on its own, and no row when another change came first.
const SAVE_IF = rewrite(
  SAVE,
  'WHERE tenant_id = $1 AND run_id = $2',
  'WHERE tenant_id = $1 AND run_id = $2 AND xmin = $17::text::xid',
);

/**
 * A change to one run, made from its current row: read without a lock, then saved only if the row is still
 * that version, in two statements and no transaction; a row changed meanwhile is read again. After a few
 * lost races (or for a missing run) the change takes the row's lock instead.
 */
async function update(
  pool: PostgresPool,
  tenantId: string,
  runId: string,
  step: (row: RunRow | undefined) => RunChange,
): Promise<RunChange> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const found = (await sql<RunRow & { version: string }>(pool, BY_ID_VERSIONED, [tenantId, runId])).rows[0];
    if (found === undefined) break;
    const { version, ...row } = found;
    const change = step(row);
    const saved = await sql(pool, SAVE_IF, [...saveValues(change), version]);
    if (saved.rowCount === 1) return change;
  }
  return inTransaction(pool, async (client) => {
    const found = await sql<RunRow>(client, `${BY_ID} FOR UPDATE`, [tenantId, runId]);
    return save(client, step(found.rows[0]));
  });
}

const EVENTS =
  'SELECT sequence, kind, data, at FROM run_events WHERE tenant_id = $1 AND run_id = $2 AND sequence > $3 ORDER BY sequence';

const ENQUEUE = 'SELECT kindgi_run_enqueue($1, $2, $3, $4, $5, $6, $7, $8, $9) AS outcome';

/** Enqueues a run in one statement (`kindgi_run_enqueue`, migration 009: per-pack lock, limits, insert, notice). */
async function insert(pool: PostgresPool, record: RunRecord, job: RunJob, limits: RunQueueLimits) {
  const { rows } = await sql<{ outcome: 'inserted' | 'exists' | 'full' | 'tenant-full' }>(pool, ENQUEUE, [
    record.tenantId,
    record.runId,
    record.toolId,
    job.packId,
    runJson(job),
    recordJson(record),
    limits.maxQueued,
    limits.maxQueuedPerTenant ?? null,
    RUN_QUEUE_CHANNEL,
  ]);
  const outcome = rows[0]?.outcome;
  if (outcome === undefined) throw new Error('kindgi_run_enqueue answered no row');
  return outcome;
}

async function exists(queryable: PostgresPool | pg.PoolClient, tenantId: string, runId: string): Promise<boolean> {
  const found = await sql(queryable, 'SELECT 1 FROM runs WHERE tenant_id = $1 AND run_id = $2', [tenantId, runId]);
  return found.rowCount !== 0;
}

async function page(pool: PostgresPool, tenantId: string, filter: RunFilter, below: number | undefined, count: number) {
  const values: unknown[] = [tenantId, below ?? Number.MAX_SAFE_INTEGER];
  const clauses = ['tenant_id = $1', 'seq < $2'];
  for (const [column, value] of [
    ['status', filter.status],
    ['tool_id', filter.toolId],
  ] as const) {
    if (value === undefined) continue;
    values.push(value);
    clauses.push(`${column} = $${values.length}`);
  }
  values.push(count);
  const text = `SELECT seq, record FROM runs WHERE ${clauses.join(' AND ')} ORDER BY seq DESC LIMIT $${values.length}`;
  const found = await sql<{ seq: string; record: string }>(pool, text, values);
  return found.rows.map((row): PagedRun => ({ seq: Number(row.seq), record: row.record }));
}

/**
 * Locks every row `where` selects, oldest first, skipping those another server holds, and saves what `step`
 * makes of each. Polled by every server: most polls find nothing, which one read answers at no lock.
 */
async function take(
  pool: PostgresPool,
  where: string,
  values: unknown[],
  step: (row: RunRow) => RunChange,
): Promise<RunChange[]> {
  const due = await sql(pool, `SELECT 1 FROM runs WHERE ${where} LIMIT 1`, values);
  if (due.rowCount === 0) return [];
  return inTransaction(pool, async (client) => {
    const text = `SELECT ${ROW} FROM runs WHERE ${where} ORDER BY seq FOR UPDATE SKIP LOCKED`;
    const changes: RunChange[] = [];
    for (const row of (await sql<RunRow>(client, text, values)).rows) changes.push(await save(client, step(row)));
    return changes;
  });
}

// The fair claim's candidate without a lock, with its row version for `SAVE_CLAIM`.
const CANDIDATE = rewrite(
  rewrite(CLAIM, `SELECT ${ROW} FROM runs r`, `SELECT ${ROW}, r.xmin::text AS version FROM runs r`),
  'LIMIT 1 FOR UPDATE OF r SKIP LOCKED',
  'LIMIT 1',
);
// `SAVE_IF` that also records the claim as its tenant's last (`TAKE_TURN`), in the same statement.
const SAVE_CLAIM = rewrite(
  SAVE_IF,
  '\n  SELECT pg_notify',
  `, turn AS (
    INSERT INTO run_turns (tenant_id, turn) SELECT $1, nextval('run_turn_seq') FROM saved
    ON CONFLICT (tenant_id) DO UPDATE SET turn = EXCLUDED.turn
  )
  SELECT pg_notify`,
);

/**
 * Claims the next run in the fair order (`CLAIM`) and records it as its tenant's last claim. The candidate is
 * read without a lock and claimed only while it is still the version read (`SAVE_CLAIM`, one statement), so
 * servers claiming at once each take a different run: one that lost the race reads the next candidate. After a
 * few lost races the claim locks its row instead (`FOR UPDATE SKIP LOCKED`).
 */
async function claim(
  pool: PostgresPool,
  { busyPacks, servedPacks, agents }: ClaimFilter,
  step: (row: RunRow) => RunChange,
): Promise<RunChange | undefined> {
  const values = [[...busyPacks], servedPacks === undefined ? null : [...servedPacks], agents !== false];
  // No lock is taken to look: a poll that finds nothing is this one read (an empty queue ends the walk at once).
  for (let attempt = 0; attempt < 3; attempt++) {
    const found = (await sql<RunRow & { version: string }>(pool, CANDIDATE, values)).rows[0];
    if (found === undefined) return undefined;
    const { version, ...row } = found;
    const change = step(row);
    if ((await sql(pool, SAVE_CLAIM, [...saveValues(change), version])).rowCount === 1) return change;
  }
  return inTransaction(pool, async (client) => {
    const row = (await sql<RunRow>(client, CLAIM, values)).rows[0];
    if (row === undefined) return undefined;
    const change = await save(client, step(row));
    await sql(client, TAKE_TURN, [change.run.tenantId]);
    return change;
  });
}

function expire(pool: PostgresPool, keep: readonly RunKey[], step: (row: RunRow) => RunChange) {
  return take(pool, EXPIRED, [keep.map((key) => key.tenantId), keep.map((key) => key.runId)], step);
}

/**
 * Reads of a run by id, those asked for in one turn of the event loop sharing one statement: a change notice
 * wakes every watcher of the run at once (the request waiting for it, the executor's lease keeper), and each
 * re-reads it. The statement is sent only after every read sharing it was asked for, so each still sees every
 * change made before it was asked.
 */
function sharedReads(pool: PostgresPool): (tenantId: string, runId: string) => Promise<RunRow | undefined> {
  const waiting = new Map<string, Promise<RunRow | undefined>>();
  return (tenantId, runId) => {
    const key = JSON.stringify([tenantId, runId]);
    let read = waiting.get(key);
    if (read === undefined) {
      read = new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
        waiting.delete(key);
        return (await sql<RunRow>(pool, BY_ID, [tenantId, runId])).rows[0];
      });
      waiting.set(key, read);
    }
    return read;
  };
}

// Every status, checked complete by the compiler.
const STATUSES: Record<RunStatus, true> = {
  queued: true,
  running: true,
  waiting: true,
  completed: true,
  failed: true,
  cancelled: true,
};

/** A notice's status; one this version does not know reads as none (the watcher re-reads). */
function noticeStatus(text: string): RunStatus | undefined {
  return Object.hasOwn(STATUSES, text) ? (text as RunStatus) : undefined;
}

/**
 * Runs, their per-pack queue, leases and journals in PostgreSQL. A claim takes the next available queued
 * run in the fair order (`CLAIM`) with `FOR UPDATE SKIP LOCKED`, so concurrent servers never take the same
 * one; every status change
 * locks the run's row and journals its event in the same transaction; leases are compared with the
 * database's clock. Changes are announced with NOTIFY, so watchers on any server re-read at once.
 */
export function createPostgresRunStore(pool: PostgresPool, listener: PostgresListener): RunStore {
  return createRunStore({
    insert: (record, job, limits) => insert(pool, record, job, limits),
    read: sharedReads(pool),
    page: (tenantId, filter, below, count) => page(pool, tenantId, filter, below, count),
    update: (tenantId, runId, step) => update(pool, tenantId, runId, step),
    claim: (filter, step) => claim(pool, filter, step),
    expire: (keep, step) => expire(pool, keep, step),
    heartbeat: async (tenantId, runId, owner, leaseMs) => {
      const renewed = await sql(
        pool,
        `UPDATE runs SET lease_expires_at = ${NOW_MS} + $4 WHERE tenant_id = $1 AND run_id = $2
           AND status = 'running' AND lease_owner = $3`,
        [tenantId, runId, owner, leaseMs],
      );
      return renewed.rowCount === 1;
    },
    append: async (tenantId, runId, { kind, data, at }) => {
      const channel = [RUN_EVENTS_CHANNEL, JSON.stringify([tenantId, runId])];
      const inserted = await sql<{ sequence: number }>(pool, APPEND, [tenantId, runId, kind, data, at, ...channel]);
      return inserted.rows[0]?.sequence;
    },
    events: async (tenantId, runId, after) => {
      const found = await sql<StoredRunEvent>(pool, EVENTS, [tenantId, runId, after]);
      // An empty journal and a missing run look alike: only then does it take a second read.
      if (found.rows.length > 0 || (await exists(pool, tenantId, runId))) return found.rows;
      return undefined;
    },
    watch(tenantId, runId, onChange) {
      const mine = JSON.stringify([tenantId, runId]);
      // A transition's notice is `mine` with its status appended: `["t","r","running"]`.
      const withStatus = `${mine.slice(0, -1)},"`;
      return listener.subscribe(RUN_EVENTS_CHANNEL, (payload) => {
        if (payload === '' || payload === mine) onChange();
        else if (payload.startsWith(withStatus)) onChange(noticeStatus(payload.slice(withStatus.length, -2)));
      });
    },
    watchQueue: (onQueued) => listener.subscribe(RUN_QUEUE_CHANNEL, () => onQueued()),
    ...postgresApprovalRows(pool, save),
  });
}
