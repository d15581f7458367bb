import type { PagedRun, RunChange, RunRow, RunRows, StoredApproval } from '@kindgi/bindings';
import type { KindgiDatabase } from './database.js';

/** Approvals of agent runs: the record and the suspended turn's state, beside the run they hold. */
export const APPROVALS_SCHEMA = `
CREATE TABLE IF NOT EXISTS run_approvals (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  tenant_id TEXT NOT NULL,
  approval_id TEXT NOT NULL,
  run_id TEXT NOT NULL,
  status TEXT NOT NULL,
  record TEXT NOT NULL,
  state TEXT NOT NULL,
  UNIQUE (tenant_id, approval_id)
);
CREATE INDEX IF NOT EXISTS run_approvals_run ON run_approvals (tenant_id, run_id, seq);
CREATE INDEX IF NOT EXISTS run_approvals_status ON run_approvals (tenant_id, status, seq);
`;

type ApprovalRows = Pick<RunRows, 'suspend' | 'readApproval' | 'pageApprovals' | 'latestApproval' | 'decide'>;

const COLUMNS = 'tenant_id AS tenantId, approval_id AS approvalId, run_id AS runId, status, record, state';

/** What the approval rows need of the run rows: a locked read and a save, inside the caller's transaction. */
export interface SqliteRunAccess {
  read(tenantId: string, runId: string): RunRow | undefined;
  save(change: RunChange): RunChange;
  atomic<A extends unknown[], T>(work: (...args: A) => T): (...args: A) => T;
}

/** The approval half of the SQLite rows port; suspension and decision each one immediate transaction. */
export function sqliteApprovalRows(db: KindgiDatabase, runs: SqliteRunAccess): ApprovalRows {
  db.exec(APPROVALS_SCHEMA);
  const insert = db.prepare(
    `INSERT INTO run_approvals (tenant_id, approval_id, run_id, status, record, state)
     VALUES (@tenantId, @approvalId, @runId, @status, @record, @state)`,
  );
  const byId = db.prepare<[string, string], StoredApproval>(
    `SELECT ${COLUMNS} FROM run_approvals WHERE tenant_id = ? AND approval_id = ?`,
  );
  const latest = db.prepare<[string, string], StoredApproval>(
    `SELECT ${COLUMNS} FROM run_approvals WHERE tenant_id = ? AND run_id = ? ORDER BY seq DESC LIMIT 1`,
  );
  const decided = db.prepare('UPDATE run_approvals SET status = ?, record = ? WHERE tenant_id = ? AND approval_id = ?');
  return {
    suspend: runs.atomic((tenantId: string, runId: string, approval: StoredApproval, step) => {
      const change = runs.save(step(runs.read(tenantId, runId)));
      insert.run(approval);
      return change;
    }),
    readApproval: (tenantId, approvalId) => byId.get(tenantId, approvalId),
    pageApprovals: (tenantId, filter, below, count) => {
      const clauses = ['tenant_id = ?', 'seq < ?'];
      const params: unknown[] = [tenantId, below ?? Number.MAX_SAFE_INTEGER];
      for (const [column, value] of [
        ['status', filter.status],
        ['run_id', filter.runId],
      ] as const) {
        if (value === undefined) continue;
        clauses.push(`${column} = ?`);
        params.push(value);
      }
      const sql = `SELECT seq, record FROM run_approvals WHERE ${clauses.join(' AND ')} ORDER BY seq DESC LIMIT ?`;
      return db.prepare<unknown[], PagedRun>(sql).all(...params, count);
    },
    latestApproval: (tenantId, runId) => latest.get(tenantId, runId),
    decide: runs.atomic((tenantId: string, approvalId: string, step) => {
      const found = byId.get(tenantId, approvalId);
      const change = step(found, found && runs.read(tenantId, found.runId));
      decided.run(change.approval.status, change.approval.record, tenantId, approvalId);
      if (change.run !== undefined) runs.save(change.run);
      return change;
    }),
  };
}
