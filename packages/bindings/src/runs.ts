import type { Result } from '@kindgi/protocol';
import type { GuardrailDescriptor } from './tool-registry.js';

export type RunStatus = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';

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
  toolId: string;
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
  /** The pack's queue holds `maxQueued` runs already: accepting more would only delay them all. */
  | { code: 'run-queue-full'; message: string }
  /** The run finished already (`finish` without an owner, e.g. a cancel). */
  | { code: 'run-already-terminal'; message: string; run: RunRecord }
  /** The caller's lease is gone: the run was cancelled, interrupted or finished elsewhere. */
  | { code: 'run-lease-lost'; message: string }
  /** `list` was given a cursor the store did not issue. */
  | { code: 'invalid-cursor'; message: string }
  | { code: 'run-store-error'; message: string; cause?: unknown };

type Async<T> = Promise<Result<T, RunStoreError>>;

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
 * Execution is claimed, never assumed: `enqueue` stores a `queued` run; an executor `claim`s the oldest
 * available one (status `running`, a lease of `leaseMs` owned by `owner`), keeps it alive with `heartbeat`,
 * and ends it with `finish(…, { owner })`, which fails with `run-lease-lost` if the lease is no longer its
 * own. `expireLeases` fails runs whose lease ran out (their executor died) as `run-interrupted`. Every
 * transition that changes `status` journals its event in the same atomic step, so a run is executed at most
 * once and every stream follower sees its end. A store shared by N servers must keep these semantics across
 * them (PostgreSQL: row locks and `FOR UPDATE SKIP LOCKED`).
 */
export interface RunStore {
  /** Stores a new `queued` run; `run-queue-full` when `job.packId` already has `maxQueued` queued runs. */
  enqueue(run: RunRecord, job: RunJob, options: { maxQueued: number }): Async<RunRecord>;
  get(tenantId: string, runId: string): Async<RunRecord | null>;
  /** Records without `output` (with `outputSize`); a `cursor` the store did not issue is `invalid-cursor`. */
  list(
    tenantId: string,
    filter: RunFilter,
    cursor: string | undefined,
    limit: number,
  ): Async<{ data: RunRecord[]; nextCursor?: string }>;
  /**
   * Leases the oldest queued run that is available (not delayed by `requeue`) and not in `busyPacks`: it
   * becomes `running`; the first claim sets `startedAt` and journals `run.started`.
   */
  claim(request: { owner: string; leaseMs: number; busyPacks: readonly string[] }): Async<ClaimedRun | null>;
  /** Extends the lease; false when it is lost (the run is no longer running under `owner`). */
  heartbeat(tenantId: string, runId: string, owner: string, leaseMs: number): Async<boolean>;
  /** Gives a leased run back to its queue (the pack said it did not run it), claimable after `delayMs`. */
  requeue(tenantId: string, runId: string, owner: string, delayMs: number): Async<void>;
  /**
   * Records the terminal outcome and journals its event atomically. With `owner`, only while that lease
   * holds (`run-lease-lost` otherwise); without, for any non-terminal run (`run-already-terminal`).
   */
  finish(tenantId: string, runId: string, outcome: RunOutcome, options?: { owner?: string }): Async<RunRecord>;
  /** Fails every running run whose lease expired as `run-interrupted`; returns them. */
  expireLeases(message: string): Async<RunRecord[]>;
  /** Appends a non-terminal event (e.g. `guardrail.violation`), assigning the run's next sequence number. */
  appendEvent(tenantId: string, runId: string, event: { kind: string; data: unknown }): Async<RunEvent>;
  /** Events with a sequence greater than `afterSequence`, ascending. */
  listEvents(tenantId: string, runId: string, afterSequence: number): Async<RunEvent[]>;
  /**
   * Calls `onChange` soon after any process changes the run or its journal (it then re-reads); returns the
   * unsubscribe. Callers still re-read periodically: a notification may be lost with a connection.
   */
  watch(tenantId: string, runId: string, onChange: () => void): () => void;
  /** Calls `onQueued` soon after any process enqueues or requeues a run; returns the unsubscribe. */
  watchQueue(onQueued: () => void): () => void;
}
