/** Where an approval request stands. */
export type ApprovalStatus = 'pending' | 'approved' | 'denied';

/** A decision on a pending approval request. */
export interface ApprovalDecisionInput {
  decision: 'approve' | 'deny';
  /** Why, in the approver's words (at most 1,000 characters reach the model on a denial). */
  reason?: string;
}

/**
 * A tool call an agent run waits on someone to approve or deny. Created with the run's suspension (in the
 * same store step), decided once; the decision requeues the run, which any server then resumes.
 */
export interface ApprovalRecord {
  approvalId: string;
  tenantId: string;
  runId: string;
  agentId: string;
  toolId: string;
  version: string;
  /** The call's arguments, as the model wrote them (parsed). */
  arguments: unknown;
  /** `not-read-only`: the tool may change something; `listed`: the agent's `hitl.tools` names it. */
  reason: 'not-read-only' | 'listed';
  status: ApprovalStatus;
  createdAt: string;
  /** Present once decided. */
  decision?: ApprovalDecisionInput & { decidedAt: string };
}

/** What `listApprovals` may narrow to. */
export interface ApprovalFilter {
  status?: ApprovalStatus;
  runId?: string;
}

/** A run's latest approval and the suspended turn's state (JSON the kernel resumes from). */
export interface SuspendedTurn {
  approval: ApprovalRecord;
  state: unknown;
}
