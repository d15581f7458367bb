import { err, ok, type Result } from '@kindgi/protocol';
import type { ApprovalDecisionInput, ApprovalRecord } from '../approvals.js';
import { clampListLimit, encodeListCursor } from '../blob-rules/index.js';
import type { RunStore, RunStoreError } from '../runs.js';
import { attemptRunAsync, unwrapRun } from './refusals.js';
import type { ApprovalChange, RunRows, StoredApproval } from './rows.js';
import { type RunRow, resumeRun, runJson, suspendRun } from './transitions.js';

const MAX_REASON_CHARS = 1_000;

export const approvalNotFound = (approvalId: string): RunStoreError => ({
  code: 'approval-not-found',
  message: `No approval '${approvalId}'.`,
});

/** The approval and its run after a decision, or why it is refused (missing, decided before). */
export function decideApproval(
  approvalId: string,
  stored: StoredApproval | undefined,
  row: RunRow | undefined,
  decision: ApprovalDecisionInput,
  at: string,
): Result<ApprovalChange, RunStoreError> {
  if (stored === undefined) return err(approvalNotFound(approvalId));
  const record = JSON.parse(stored.record) as ApprovalRecord;
  if (record.status !== 'pending') {
    return err({
      code: 'approval-already-completed',
      message: `Approval '${approvalId}' was ${record.status} already.`,
      approval: record,
    });
  }
  const reason = decision.reason?.slice(0, MAX_REASON_CHARS);
  const decided: ApprovalRecord = {
    ...record,
    status: decision.decision === 'approve' ? 'approved' : 'denied',
    decision: { decision: decision.decision, ...(reason !== undefined ? { reason } : {}), decidedAt: at },
  };
  const approval = { ...stored, status: decided.status, record: runJson(decided) };
  // A run cancelled while it waited stays cancelled: the decision is recorded all the same.
  const run = row === undefined ? undefined : resumeRun(row, at);
  return ok(run === undefined ? { approval } : { approval, run });
}

type ApprovalMethods = Pick<
  RunStore,
  'suspend' | 'getApproval' | 'listApprovals' | 'completeApproval' | 'suspendedTurn'
>;

/** The approval half of `createRunStore`: suspension and decision each one transaction with the run's change. */
export function approvalMethods(
  rows: RunRows,
  stamp: () => string,
  decode: (cursor: string) => number,
): ApprovalMethods {
  return {
    suspend: (tenantId, runId, owner, approval, state) =>
      attemptRunAsync(async () => {
        const stored: StoredApproval = {
          tenantId,
          approvalId: approval.approvalId,
          runId,
          status: approval.status,
          record: runJson(approval),
          state: runJson(state),
        };
        const change = await rows.suspend(tenantId, runId, stored, (row) =>
          unwrapRun(suspendRun(row, runId, owner, stamp())),
        );
        rows.changed?.(tenantId, runId, change.run.status);
        return change.run;
      }),
    getApproval: (tenantId, approvalId) =>
      attemptRunAsync(async () => {
        const stored = await rows.readApproval(tenantId, approvalId);
        return stored === undefined ? null : (JSON.parse(stored.record) as ApprovalRecord);
      }),
    listApprovals: (tenantId, filter, cursor, limit) =>
      attemptRunAsync(async () => {
        const size = clampListLimit(limit);
        const below = cursor === undefined ? undefined : decode(cursor);
        const found = await rows.pageApprovals(tenantId, filter, below, size + 1);
        const data = found.slice(0, size).map((row) => JSON.parse(row.record) as ApprovalRecord);
        const last = found[size - 1];
        return found.length > size && last !== undefined ? { data, nextCursor: encodeListCursor(last.seq) } : { data };
      }),
    completeApproval: (tenantId, approvalId, decision) =>
      attemptRunAsync(async () => {
        const at = stamp();
        const change = await rows.decide(tenantId, approvalId, (stored, row) =>
          unwrapRun(decideApproval(approvalId, stored, row, decision, at)),
        );
        if (change.run !== undefined) {
          rows.changed?.(tenantId, change.run.run.runId, change.run.run.status);
          rows.queued?.();
        }
        return JSON.parse(change.approval.record) as ApprovalRecord;
      }),
    suspendedTurn: (tenantId, runId) =>
      attemptRunAsync(async () => {
        const stored = await rows.latestApproval(tenantId, runId);
        if (stored === undefined) return null;
        return { approval: JSON.parse(stored.record) as ApprovalRecord, state: JSON.parse(stored.state) as unknown };
      }),
  };
}
