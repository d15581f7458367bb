import type { RunChange, RunRow, RunRows, StoredApproval } from '@kindgi/bindings';

type ApprovalRows = Pick<RunRows, 'suspend' | 'readApproval' | 'pageApprovals' | 'latestApproval' | 'decide'>;

/** How the approval rows reach the memory store's runs. */
export interface MemoryRunAccess {
  read(tenantId: string, runId: string): RunRow | undefined;
  save(change: RunChange): RunChange;
}

/**
 * The approval half of the memory store's rows: approvals in insertion order, copied as text so no caller
 * shares an object with the store. Every step is synchronous, so each is as atomic as a transaction.
 */
export function memoryApprovalRows(runs: MemoryRunAccess): ApprovalRows {
  const approvals: (StoredApproval & { seq: number })[] = [];
  const find = (tenantId: string, approvalId: string) =>
    approvals.find((a) => a.tenantId === tenantId && a.approvalId === approvalId);
  return {
    suspend(tenantId, runId, approval, step) {
      const change = step(runs.read(tenantId, runId));
      runs.save(change);
      approvals.push({ ...approval, seq: approvals.length + 1 });
      return change;
    },
    readApproval: (tenantId, approvalId) => {
      const found = find(tenantId, approvalId);
      return found && { ...found };
    },
    pageApprovals: (tenantId, filter, below, count) =>
      approvals
        .filter(
          (a) =>
            a.tenantId === tenantId &&
            a.seq < (below ?? Number.POSITIVE_INFINITY) &&
            (filter.status ?? a.status) === a.status &&
            (filter.runId ?? a.runId) === a.runId,
        )
        .reverse()
        .slice(0, count)
        .map((a) => ({ seq: a.seq, record: a.record })),
    latestApproval: (tenantId, runId) => {
      const found = approvals.filter((a) => a.tenantId === tenantId && a.runId === runId).at(-1);
      return found && { ...found };
    },
    decide(tenantId, approvalId, step) {
      const found = find(tenantId, approvalId);
      const change = step(found && { ...found }, found && runs.read(tenantId, found.runId));
      if (found !== undefined) Object.assign(found, { status: change.approval.status, record: change.approval.record });
      if (change.run !== undefined) runs.save(change.run);
      return change;
    },
  };
}
