import type { ApprovalFilter } from '../approvals.js';
import type {
  RunClaimRequest,
  RunFilter,
  RunJob,
  RunKey,
  RunQueueLimits,
  RunRecord,
  RunStatus,
  RunStore,
} from '../runs.js';
import type { RunChange, RunRow } from './transitions.js';

type Maybe<T> = T | Promise<T>;

/** One journal entry as stored: its data is JSON text. */
export interface StoredRunEvent {
  sequence: number;
  kind: string;
  data: string;
  at: string;
}

/** A listed run (its record's JSON text) and its position in the store's insertion order. */
export interface PagedRun {
  seq: number;
  record: string;
}

/** An approval as stored: its record and the suspended turn's state as JSON text. */
export interface StoredApproval {
  tenantId: string;
  approvalId: string;
  runId: string;
  status: string;
  record: string;
  state: string;
}

/** What deciding an approval writes: the approval, and the run's change when it was still waiting. */
export interface ApprovalChange {
  approval: StoredApproval;
  run?: RunChange;
}

/** Which queued runs a claim may take. */
export type ClaimFilter = Pick<RunClaimRequest, 'busyPacks' | 'servedPacks' | 'agents'>;

/**
 * The rows port a run store is made of (`createRunStore`). The adapter owns storage, atomicity and the clock
 * leases are compared with; every decision is a pure transition (`transitions.ts`) applied by a `step`. A
 * method that takes a `step` runs in one transaction: it reads and locks the row(s), writes what `step`
 * returns and, for a `journal` kind, appends that event with the record as its data; when `step` throws,
 * nothing is written.
 */
export interface RunRows {
  /**
   * Stores a queued run unless its id is taken (`exists`), its pack holds `maxQueued` queued runs already
   * (`full`) or this tenant `maxQueuedPerTenant` of them (`tenant-full`).
   */
  insert(record: RunRecord, job: RunJob, limits: RunQueueLimits): Maybe<'inserted' | 'exists' | 'full' | 'tenant-full'>;
  read(tenantId: string, runId: string): Maybe<RunRow | undefined>;
  /** Up to `count` of the tenant's matching runs with a `seq` below `below` (any when absent), newest first. */
  page(tenantId: string, filter: RunFilter, below: number | undefined, count: number): Maybe<PagedRun[]>;
  update(tenantId: string, runId: string, step: (row: RunRow | undefined) => RunChange): Maybe<RunChange>;
  /**
   * The next queued run whose delay is over, of a pack in `servedPacks` (any when absent) and not in
   * `busyPacks`, not an agent run (its job has `agent`) when `agents` is false, in the fair order `RunStore` describes: the tenant with the fewest running runs, then the
   * one whose last claim is oldest, then its oldest run. Locked rows are skipped. Records the claim as the
   * tenant's last, in the same transaction.
   */
  claim(filter: ClaimFilter, step: (row: RunRow) => RunChange): Maybe<RunChange | undefined>;
  /** Every running run whose lease expired and that is not in `keep`, oldest first. */
  expire(keep: readonly RunKey[], step: (row: RunRow) => RunChange): Maybe<RunChange[]>;
  /** Extends the lease while the run is running under `owner` (an expired lease too); false when it is not. */
  heartbeat(tenantId: string, runId: string, owner: string, leaseMs: number): Maybe<boolean>;
  /** Appends with the run's next sequence number, which it returns; `undefined` when the run does not exist. */
  append(tenantId: string, runId: string, event: Omit<StoredRunEvent, 'sequence'>): Maybe<number | undefined>;
  /** The events after `after`, ascending; `undefined` when the run does not exist. */
  events(tenantId: string, runId: string, after: number): Maybe<StoredRunEvent[] | undefined>;
  watch: RunStore['watch'];
  watchQueue: RunStore['watchQueue'];
  /** In one transaction: the run's change (`step` of its locked row) and the new approval. */
  suspend(
    tenantId: string,
    runId: string,
    approval: StoredApproval,
    step: (row: RunRow | undefined) => RunChange,
  ): Maybe<RunChange>;
  readApproval(tenantId: string, approvalId: string): Maybe<StoredApproval | undefined>;
  /** Up to `count` of the tenant's matching approvals with a `seq` below `below`, newest first. */
  pageApprovals(tenantId: string, filter: ApprovalFilter, below: number | undefined, count: number): Maybe<PagedRun[]>;
  /** The run's newest approval. */
  latestApproval(tenantId: string, runId: string): Maybe<StoredApproval | undefined>;
  /**
   * In one transaction: locks the approval and its run, writes what `step` makes of them (the approval; the
   * run's change, journal included, when it has one).
   */
  decide(
    tenantId: string,
    approvalId: string,
    step: (approval: StoredApproval | undefined, run: RunRow | undefined) => ApprovalChange,
  ): Maybe<ApprovalChange>;
  /** For stores that notify in process, after a change committed (PostgreSQL notifies in the transaction). */
  changed?(tenantId: string, runId: string, status?: RunStatus): void;
  queued?(): void;
}
