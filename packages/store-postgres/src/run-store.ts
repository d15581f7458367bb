import { type ClaimedRun, type RunJob, type RunRecord, type RunStore, TERMINAL_RUN_STATUSES } from '@kindgi/bindings';
import { type PostgresListener, RUN_EVENTS_CHANNEL, RUN_QUEUE_CHANNEL } from './notify.js';
import type { PostgresPool } from './pool.js';
import {
  append,
  attempt,
  fail,
  finishRow,
  full,
  holds,
  leaseLost,
  listed,
  lockRow,
  notFound,
  ROW,
  type RunRow,
  saveAndAppend,
  saveRecord,
  toJson,
} from './run-rows.js';
import { inTransaction, NOW_MS, sql } from './tx.js';

/**
 * Runs, their per-pack queue, leases and journals in PostgreSQL. A claim takes the oldest available queued
 * run with `FOR UPDATE SKIP LOCKED`, so concurrent servers never take the same one; every status change
 * locks the run's row and journals its event in the same transaction; leases are compared with the
 * database's clock. Changes are announced with NOTIFY, so watchers on any server re-read at once.
 */
// A queued run whose retry delay is over, of a pack the claimer has room for ($1: the busy packs).
const CLAIMABLE = `status = 'queued' AND available_at <= ${NOW_MS} AND NOT (pack_id = ANY($1::text[]))`;

export function createPostgresRunStore(pool: PostgresPool, listener: PostgresListener): RunStore {
  return {
    enqueue: (run, job, { maxQueued }) =>
      attempt(() =>
        inTransaction(pool, async (client) => {
          // Serializes enqueues per pack so the count below stays true until this run is inserted.
          await sql(client, 'SELECT pg_advisory_xact_lock(hashtext($1))', [`kindgi-run-queue:${job.packId}`]);
          const { output: _output, ...record } = { ...run, status: 'queued' as const };
          // A new statement, so a new snapshot: the count sees every run enqueued before the lock was granted.
          const inserted = await sql(
            client,
            `INSERT INTO runs (tenant_id, run_id, tool_id, pack_id, job, status, record)
             SELECT $1, $2, $3, $4, $5, 'queued', $6
             WHERE (SELECT count(*) FROM runs WHERE pack_id = $4 AND status = 'queued') < $8
             ON CONFLICT (tenant_id, run_id) DO NOTHING
             RETURNING seq, pg_notify($7, $4)`,
            [
              run.tenantId,
              run.runId,
              run.toolId,
              job.packId,
              toJson(job),
              toJson(record),
              RUN_QUEUE_CHANNEL,
              maxQueued,
            ],
          );
          if (inserted.rowCount === 0) {
            const exists = await sql(client, 'SELECT 1 FROM runs WHERE tenant_id = $1 AND run_id = $2', [
              run.tenantId,
              run.runId,
            ]);
            if (exists.rowCount !== 0) fail({ code: 'run-already-exists', message: `run ${run.runId} already exists` });
            fail({ code: 'run-queue-full', message: `the queue of pack ${job.packId} is full` });
          }
          return record as RunRecord;
        }),
      ),
    get: (tenantId, runId) =>
      attempt(async () => {
        const found = await sql<RunRow>(pool, `SELECT ${ROW} FROM runs WHERE tenant_id = $1 AND run_id = $2`, [
          tenantId,
          runId,
        ]);
        const row = found.rows[0];
        return row === undefined ? null : full(row);
      }),
    list: (tenantId, filter, cursor, limit) =>
      attempt(async () => {
        const params: unknown[] = [tenantId];
        const clauses = ['tenant_id = $1'];
        if (cursor !== undefined) {
          if (!/^\d{1,18}$/.test(cursor)) fail({ code: 'run-store-error', message: 'the runs cursor is not valid' });
          params.push(cursor);
          clauses.push(`seq < $${params.length}`);
        }
        if (filter.status !== undefined) {
          params.push(filter.status);
          clauses.push(`status = $${params.length}`);
        }
        if (filter.toolId !== undefined) {
          params.push(filter.toolId);
          clauses.push(`tool_id = $${params.length}`);
        }
        const size = Math.max(1, Math.min(1000, Math.floor(Number.isFinite(limit) ? limit : 100)));
        params.push(size + 1);
        const rows = (
          await sql<{ seq: string; record: string }>(
            pool,
            `SELECT seq, record FROM runs WHERE ${clauses.join(' AND ')} ORDER BY seq DESC LIMIT $${params.length}`,
            params,
          )
        ).rows;
        const page = rows.slice(0, size);
        const last = page.at(-1);
        const data = page.map((row) => listed(row.record));
        return rows.length > size && last !== undefined ? { data, nextCursor: last.seq } : { data };
      }),
    claim: ({ owner, leaseMs, busyPacks }) =>
      attempt(async () => {
        // Most polls find nothing: one read answers that without a transaction's three round trips.
        const due = await sql(pool, `SELECT 1 FROM runs WHERE ${CLAIMABLE} LIMIT 1`, [[...busyPacks]]);
        if (due.rowCount === 0) return null;
        return inTransaction(pool, async (client): Promise<ClaimedRun | null> => {
          const found = await sql<RunRow>(
            client,
            `UPDATE runs SET attempts = attempts + 1, lease_owner = $1, lease_expires_at = ${NOW_MS} + $2
             WHERE seq = (SELECT seq FROM runs WHERE ${CLAIMABLE.replace('$1', '$3')}
                            ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED)
             RETURNING ${ROW}`,
            [owner, leaseMs, [...busyPacks]],
          );
          const row = found.rows[0];
          if (row === undefined) return null;
          const at = new Date().toISOString();
          const run: RunRecord = { ...listed(row.record), status: 'running', updatedAt: at };
          const first = run.startedAt === undefined;
          if (first) run.startedAt = at;
          if (first) await saveAndAppend(client, run, 'run.started');
          else {
            await saveRecord(client, run);
            await sql(client, 'SELECT pg_notify($1, $2)', [
              RUN_EVENTS_CHANNEL,
              JSON.stringify([run.tenantId, run.runId]),
            ]);
          }
          return { run, job: JSON.parse(row.job) as RunJob, owner, attempt: row.attempts };
        });
      }),
    heartbeat: (tenantId, runId, owner, leaseMs) =>
      attempt(async () => {
        const renewed = await sql(
          pool,
          `UPDATE runs SET lease_expires_at = ${NOW_MS} + $4 WHERE tenant_id = $1 AND run_id = $2
             AND status = 'running' AND lease_owner = $3 AND lease_expires_at > ${NOW_MS}`,
          [tenantId, runId, owner, leaseMs],
        );
        return renewed.rowCount === 1;
      }),
    requeue: (tenantId, runId, owner, delayMs) =>
      attempt(() =>
        inTransaction(pool, async (client) => {
          const row = await lockRow(client, tenantId, runId);
          if (!holds(row, owner)) leaseLost(runId);
          const run: RunRecord = { ...listed(row.record), status: 'queued', updatedAt: new Date().toISOString() };
          await saveRecord(client, run, `available_at = ${NOW_MS} + $5, lease_owner = NULL, lease_expires_at = NULL`, [
            delayMs,
          ]);
          await sql(client, 'SELECT pg_notify($1, $2)', [RUN_QUEUE_CHANNEL, '']);
          await sql(client, 'SELECT pg_notify($1, $2)', [RUN_EVENTS_CHANNEL, JSON.stringify([tenantId, runId])]);
        }),
      ),
    finish: (tenantId, runId, outcome, options = {}) =>
      attempt(() =>
        inTransaction(pool, async (client) => {
          const row = await lockRow(client, tenantId, runId);
          if (options.owner !== undefined && !holds(row, options.owner)) leaseLost(runId);
          if (options.owner === undefined && TERMINAL_RUN_STATUSES.has(row.status as RunRecord['status'])) {
            fail({ code: 'run-already-terminal', message: `run ${runId} has finished`, run: full(row) });
          }
          return finishRow(client, row, outcome);
        }),
      ),
    expireLeases: (message) =>
      attempt(async () => {
        // Polled by every server every second: a read answers "none" without a transaction.
        const due = await sql(
          pool,
          `SELECT 1 FROM runs WHERE status = 'running' AND lease_expires_at <= ${NOW_MS} LIMIT 1`,
        );
        if (due.rowCount === 0) return [];
        return inTransaction(pool, async (client) => {
          const expired = await sql<RunRow>(
            client,
            `SELECT ${ROW} FROM runs WHERE status = 'running' AND lease_expires_at <= ${NOW_MS}
             ORDER BY seq FOR UPDATE SKIP LOCKED`,
          );
          const out: RunRecord[] = [];
          for (const row of expired.rows) {
            out.push(await finishRow(client, row, { status: 'failed', error: { code: 'run-interrupted', message } }));
          }
          return out;
        });
      }),
    appendEvent: (tenantId, runId, event) =>
      attempt(() => inTransaction(pool, (client) => append(client, tenantId, runId, event.kind, event.data))),
    listEvents: (tenantId, runId, afterSequence) =>
      attempt(async () => {
        const rows = await sql<{ sequence: number; kind: string; data: string; at: string }>(
          pool,
          'SELECT sequence, kind, data, at FROM run_events WHERE tenant_id = $1 AND run_id = $2 AND sequence > $3 ORDER BY sequence',
          [tenantId, runId, afterSequence],
        );
        if (rows.rows.length === 0) {
          const exists = await sql(pool, 'SELECT 1 FROM runs WHERE tenant_id = $1 AND run_id = $2', [tenantId, runId]);
          if (exists.rowCount === 0) notFound(runId);
        }
        return rows.rows.map((row) => ({
          runId,
          sequence: row.sequence,
          kind: row.kind,
          data: JSON.parse(row.data),
          at: row.at,
        }));
      }),
    watch(tenantId, runId, onChange) {
      const mine = JSON.stringify([tenantId, runId]);
      return listener.subscribe(RUN_EVENTS_CHANNEL, (payload) => {
        if (payload === '' || payload === mine) onChange();
      });
    },
    watchQueue(onQueued) {
      return listener.subscribe(RUN_QUEUE_CHANNEL, () => onQueued());
    },
  };
}
