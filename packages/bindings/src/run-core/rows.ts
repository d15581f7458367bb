import type { RunFilter, RunJob, RunRecord, RunStore } from '../runs.js';
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

/**
 * The rows port a run store is made of (`createRunStore`). The adapter owns storage, atomicity and the clock
 * leases are compared with; every decision is a pure transition (`transitions.ts`) applied by a `step`. A
 * method that takes a `step` runs in one transaction: it reads and locks the row(s), writes what `step`
 * returns and, for a `journal` kind, appends that event with the record as its data; when `step` throws,
 * nothing is written.
 */
export interface RunRows {
  /** Stores a queued run unless its id is taken or its pack holds `maxQueued` queued runs already. */
  insert(record: RunRecord, job: RunJob, maxQueued: number): Maybe<'inserted' | 'exists' | 'full'>;
  read(tenantId: string, runId: string): Maybe<RunRow | undefined>;
  /** Up to `count` of the tenant's matching runs with a `seq` below `below` (any when absent), newest first. */
  page(tenantId: string, filter: RunFilter, below: number | undefined, count: number): Maybe<PagedRun[]>;
  update(tenantId: string, runId: string, step: (row: RunRow | undefined) => RunChange): Maybe<RunChange>;
  /** The oldest queued run whose delay is over, of a pack not in `busyPacks`; locked rows are skipped. */
  claim(busyPacks: readonly string[], step: (row: RunRow) => RunChange): Maybe<RunChange | undefined>;
  /** Every running run whose lease expired, oldest first. */
  expire(step: (row: RunRow) => RunChange): Maybe<RunChange[]>;
  /** Extends the lease while `owner` holds it; false when it does not. */
  heartbeat(tenantId: string, runId: string, owner: string, leaseMs: number): Maybe<boolean>;
  /** Appends with the run's next sequence number, which it returns; `undefined` when the run does not exist. */
  append(tenantId: string, runId: string, event: Omit<StoredRunEvent, 'sequence'>): Maybe<number | undefined>;
  /** The events after `after`, ascending; `undefined` when the run does not exist. */
  events(tenantId: string, runId: string, after: number): Maybe<StoredRunEvent[] | undefined>;
  watch: RunStore['watch'];
  watchQueue: RunStore['watchQueue'];
  /** For stores that notify in process, after a change committed (PostgreSQL notifies in the transaction). */
  changed?(tenantId: string, runId: string): void;
  queued?(): void;
}
