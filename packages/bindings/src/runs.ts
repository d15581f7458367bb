import type { Result } from '@kindgi/protocol';
import type { ApprovalDecisionInput, ApprovalFilter, ApprovalRecord, SuspendedTurn } from './approvals.js';
import type { GuardrailDescriptor } from './tool-registry.js';

/** `waiting`: an agent run suspended at an approval gate, until the approval is decided. */
export type RunStatus = 'queued' | 'running' | 'waiting' | 'completed' | 'failed' | 'cancelled';

/** Statuses after which a run never changes. */
export const TERMINAL_RUN_STATUSES: ReadonlySet<RunStatus> = new Set(['completed', 'failed', 'cancelled']);

/** A guardrail that failed on a run's output without halting it. */
export interface RunViolation {
  guardrailId: string;
  checkId: string;
  action: string;
  severity: string;
  reason?: string;
}

/** Why a run failed: one shape for pack errors, transport failures and API-level codes alike. */
export interface RunError {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

/** A recorded, cancellable tool run. */
export interface RunRecord {
  runId: string;
  tenantId: string;
  /** The tool run; for an agent run, its agent id (as `agentId`). */
  toolId: string;
  /** Set on agent runs (`POST /v1/runs` with `agentId`). */
  agentId?: string;
  version?: string;
  status: RunStatus;
  input: unknown;
  guardrails: string[];
  /** Present on `get`; listings leave it out and carry `outputSize` instead. */
  output?: unknown;
  /** Bytes of the output's JSON text, once the run completed with one. */
  outputSize?: number;
  error?: RunError;
  violations: RunViolation[];
  createdAt: string;
  updatedAt: string;
  startedAt?: string;
  finishedAt?: string;
}

/** What any server needs to execute a queued run; stored beside the run, never part of the API record. */
export interface RunJob {
  /** The queue the run waits in (one per pack). */
  packId: string;
  requestId: string;
  deadlineMs?: number;
  /** Resolved when the run was accepted, so the executing server needs no registry lookup. */
  guardrails: GuardrailDescriptor[];
  /** An agent run: executed by the app's turn runner, not by one pack call. */
  agent?: { dryRun?: boolean };
}

/** A run this executor holds the lease of: it alone may finish it while it heartbeats. */
export interface ClaimedRun {
  run: RunRecord;
  job: RunJob;
  owner: string;
  /** 1 for the first claim; a run requeued after a pack's 503 is claimed again with 2, 3, … */
  attempt: number;
}

/** One entry of a run's journal; `sequence` counts from 1 per run. */
export interface RunEvent {
  runId: string;
  sequence: number;
  kind: string;
  data: unknown;
  at: string;
}

export interface RunFilter {
  status?: RunStatus;
  toolId?: string;
}

export type RunStoreError =
  | { code: 'run-not-found'; message: string }
  | { code: 'run-already-exists'; message: string }
  /** The pack's queue holds `maxQueued` runs already, or the tenant its `maxQueuedPerTenant` of them. */
  | { code: 'run-queue-full'; message: string }
  /** The run finished already (`finish` without an owner, e.g. a cancel). */
  | { code: 'run-already-terminal'; message: string; run: RunRecord }
  /** The caller's lease is gone: the run was cancelled, interrupted or finished elsewhere. */
  | { code: 'run-lease-lost'; message: string }
  /** `list` was given a cursor the store did not issue. */
  | { code: 'invalid-cursor'; message: string }
  | { code: 'approval-not-found'; message: string }
  /** The approval was decided already: a decision is taken once. */
  | { code: 'approval-already-completed'; message: string; approval: ApprovalRecord }
  | { code: 'run-store-error'; message: string; cause?: unknown };

type Async<T> = Promise<Result<T, RunStoreError>>;

/** A run's identity within its store. */
export interface RunKey {
  tenantId: string;
  runId: string;
}

/** How many queued runs `enqueue` accepts. */
export interface RunQueueLimits {
  /** Queued runs of one pack, all tenants together. */
  maxQueued: number;
  /** Queued runs of one pack and one tenant; no tenant limit when absent. */
  maxQueuedPerTenant?: number;
}

/** What `claim` may take and under which lease. */
export interface RunClaimRequest {
  owner: string;
  leaseMs: number;
  /** Packs the claimer has no room for now. */
  busyPacks: readonly string[];
  /** The packs the claimer serves; runs of other packs stay queued for a server that serves them. */
  servedPacks?: readonly string[];
  /** False when the claimer runs no agent turns (no models): agent runs stay queued for a server that does. */
  agents?: boolean;
}

/** The terminal outcome `finish` records. */
export interface RunOutcome {
  status: 'completed' | 'failed' | 'cancelled';
  output?: unknown;
  error?: RunError;
  violations?: RunViolation[];
}

/** The journal kind each terminal status appends. */
export const TERMINAL_EVENT_KINDS = {
  completed: 'run.completed',
  failed: 'run.failed',
  cancelled: 'run.cancelled',
} as const;

/**
 * Where runs, their queue and their event journals persist. Runs list newest first.
 *
 * Execution is claimed, never assumed: `enqueue` stores a `queued` run; an executor `claim`s the next
 * available one (status `running`, a lease of `leaseMs` owned by `owner`), keeps it alive with `heartbeat`,
 * and ends it with `finish(…, { owner })`, which fails with `run-lease-lost` if the run is no longer running
 * under its name. A lease that ran out is only the point after which `expireLeases` may fail the run as
 * `run-interrupted` (its executor is presumed dead); until a sweep did, the owner may still renew, requeue or
 * finish it, so an executor that could not reach the store for a while loses nothing. Every transition that
 * changes `status` journals its event in the same atomic step, so a run is executed at most once and every
 * stream follower sees its end. A store shared by N servers must keep these semantics across them
 * (PostgreSQL: row locks and `FOR UPDATE SKIP LOCKED`).
 *
 * Claims are fair between tenants: the next run is the oldest available one of the tenant with the fewest
 * runs `running` in the whole store; between tenants with as many, of the one whose last claim is the
 * oldest (a tenant never claimed first). One tenant's queued runs therefore delay another's by at most one
 * run per tenant ahead of it, not by the length of the queue.
 */
export interface RunStore {
  /**
   * Stores a new `queued` run; `run-queue-full` when `job.packId` already has `maxQueued` queued runs, or
   * `maxQueuedPerTenant` of this run's tenant (the message then names the tenant's limit).
   */
  enqueue(run: RunRecord, job: RunJob, options: RunQueueLimits): Async<RunRecord>;
  get(tenantId: string, runId: string): Async<RunRecord | null>;
  /** Records without `output` (with `outputSize`); a `cursor` the store did not issue is `invalid-cursor`. */
  list(
    tenantId: string,
    filter: RunFilter,
    cursor: string | undefined,
    limit: number,
  ): Async<{ data: RunRecord[]; nextCursor?: string }>;
  /**
   * Leases the next queued run (the fair order above) that is available (not delayed by `requeue`), of a
   * pack in `servedPacks` (any pack when absent) and not in `busyPacks`: it becomes `running`; the first
   * claim sets `startedAt` and journals `run.started`.
   */
  claim(request: RunClaimRequest): Async<ClaimedRun | null>;
  /** Extends the lease, an expired one too; false when it is lost (the run is no longer running under `owner`). */
  heartbeat(tenantId: string, runId: string, owner: string, leaseMs: number): Async<boolean>;
  /** Gives a leased run back to its queue (the pack said it did not run it), claimable after `delayMs`. */
  requeue(tenantId: string, runId: string, owner: string, delayMs: number): Async<void>;
  /**
   * Records the terminal outcome and journals its event atomically. With `owner`, only while that lease
   * holds (`run-lease-lost` otherwise); without, for any non-terminal run (`run-already-terminal`).
   */
  finish(tenantId: string, runId: string, outcome: RunOutcome, options?: { owner?: string }): Async<RunRecord>;
  /**
   * Fails every running run whose lease expired as `run-interrupted`, except those in `keep` (runs the
   * caller is still executing: its executor is alive); returns them.
   */
  expireLeases(message: string, options?: { keep?: readonly RunKey[] }): Async<RunRecord[]>;
  /** Appends a non-terminal event (e.g. `guardrail.violation`), assigning the run's next sequence number. */
  appendEvent(tenantId: string, runId: string, event: { kind: string; data: unknown }): Async<RunEvent>;
  /** Events with a sequence greater than `afterSequence`, ascending. */
  listEvents(tenantId: string, runId: string, afterSequence: number): Async<RunEvent[]>;
  /**
   * Calls `onChange` soon after any process changes the run or its journal; returns the unsubscribe. A notice
   * of a status change (a transition: enqueue excepted) carries the run's status after it, so a watcher that
   * waits for some statuses need not re-read on the others; a notice without one (a journal entry, a notice
   * after a lost connection) means "re-read". Callers still re-read periodically: a notice may be lost.
   */
  watch(tenantId: string, runId: string, onChange: (status?: RunStatus) => void): () => void;
  /** Calls `onQueued` soon after any process enqueues or requeues a run; returns the unsubscribe. */
  watchQueue(onQueued: () => void): () => void;
  /**
   * Suspends a leased agent run at an approval gate, atomically: the run becomes `waiting` (lease released,
   * `run.waiting` journaled) and the pending approval is stored with the turn's state. `run-lease-lost`
   * when `owner` no longer holds the run.
   */
  suspend(tenantId: string, runId: string, owner: string, approval: ApprovalRecord, state: unknown): Async<RunRecord>;
  getApproval(tenantId: string, approvalId: string): Async<ApprovalRecord | null>;
  /** Newest first; a `cursor` the store did not issue is `invalid-cursor`. */
  listApprovals(
    tenantId: string,
    filter: ApprovalFilter,
    cursor: string | undefined,
    limit: number,
  ): Async<{ data: ApprovalRecord[]; nextCursor?: string }>;
  /**
   * Decides a pending approval and, in the same step, puts its `waiting` run back in the queue (journaling
   * `run.resumed`), so any server resumes it. `approval-not-found` (another tenant's too),
   * `approval-already-completed` when it was decided before.
   */
  completeApproval(tenantId: string, approvalId: string, decision: ApprovalDecisionInput): Async<ApprovalRecord>;
  /** The run's latest approval and the turn state stored with it; null when it never waited. */
  suspendedTurn(tenantId: string, runId: string): Async<SuspendedTurn | null>;
}
