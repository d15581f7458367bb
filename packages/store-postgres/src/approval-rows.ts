import type { PagedRun, RunChange, RunRow, RunRows, StoredApproval } from '@kindgi/bindings';
import type pg from 'pg';
import type { PostgresPool } from './pool.js';
import { inTransaction, sql } from './tx.js';

type ApprovalRows = Pick<RunRows, 'suspend' | 'readApproval' | 'pageApprovals' | 'latestApproval' | 'decide'>;

const COLUMNS = 'tenant_id AS "tenantId", approval_id AS "approvalId", run_id AS "runId", status, record, state';
const RUN_ROW =
  'SELECT status, record, output, job, attempts, lease_owner FROM runs WHERE tenant_id = $1 AND run_id = $2 FOR UPDATE';

/** The run store's `save` (a transition, its journal entry and its NOTIFY) on a transaction's client. */
export type SaveRun = (client: pg.PoolClient, change: RunChange) => Promise<RunChange>;

async function lockedRun(client: pg.PoolClient, tenantId: string, runId: string): Promise<RunRow | undefined> {
  return (await sql<RunRow>(client, RUN_ROW, [tenantId, runId])).rows[0];
}

/**
 * The approval half of the PostgreSQL rows port (migration 007). The run's row is locked before the
 * approval's in both transactions that take the two, so they never deadlock.
 */
export function postgresApprovalRows(pool: PostgresPool, save: SaveRun): ApprovalRows {
  return {
    suspend: (tenantId, runId, approval, step) =>
      inTransaction(pool, async (client) => {
        const change = await save(client, step(await lockedRun(client, tenantId, runId)));
        await sql(
          client,
          `INSERT INTO run_approvals (tenant_id, approval_id, run_id, status, record, state)
           VALUES ($1, $2, $3, $4, $5, $6)`,
          [tenantId, approval.approvalId, runId, approval.status, approval.record, approval.state],
        );
        return change;
      }),
    readApproval: async (tenantId, approvalId) =>
      (
        await sql<StoredApproval>(
          pool,
          `SELECT ${COLUMNS} FROM run_approvals WHERE tenant_id = $1 AND approval_id = $2`,
          [tenantId, approvalId],
        )
      ).rows[0],
    pageApprovals: async (tenantId, filter, below, count) => {
      const values: unknown[] = [tenantId, below ?? Number.MAX_SAFE_INTEGER];
      const clauses = ['tenant_id = $1', 'seq < $2'];
      for (const [column, value] of [
        ['status', filter.status],
        ['run_id', filter.runId],
      ] as const) {
        if (value === undefined) continue;
        values.push(value);
        clauses.push(`${column} = $${values.length}`);
      }
      values.push(count);
      const text = `SELECT seq, record FROM run_approvals WHERE ${clauses.join(' AND ')} ORDER BY seq DESC LIMIT $${values.length}`;
      const found = await sql<{ seq: string; record: string }>(pool, text, values);
      return found.rows.map((row): PagedRun => ({ seq: Number(row.seq), record: row.record }));
    },
    latestApproval: async (tenantId, runId) =>
      (
        await sql<StoredApproval>(
          pool,
          `SELECT ${COLUMNS} FROM run_approvals WHERE tenant_id = $1 AND run_id = $2 ORDER BY seq DESC LIMIT 1`,
          [tenantId, runId],
        )
      ).rows[0],
    decide: (tenantId, approvalId, step) =>
      inTransaction(pool, async (client) => {
        const peek = await sql<{ runId: string }>(
          client,
          'SELECT run_id AS "runId" FROM run_approvals WHERE tenant_id = $1 AND approval_id = $2',
          [tenantId, approvalId],
        );
        const runId = peek.rows[0]?.runId;
        const run = runId === undefined ? undefined : await lockedRun(client, tenantId, runId);
        const found = await sql<StoredApproval>(
          client,
          `SELECT ${COLUMNS} FROM run_approvals WHERE tenant_id = $1 AND approval_id = $2 FOR UPDATE`,
          [tenantId, approvalId],
        );
        const change = step(found.rows[0], run);
        await sql(
          client,
          'UPDATE run_approvals SET status = $3, record = $4 WHERE tenant_id = $1 AND approval_id = $2',
          [tenantId, approvalId, change.approval.status, change.approval.record],
        );
        if (change.run !== undefined) await save(client, change.run);
        return change;
      }),
  };
}
