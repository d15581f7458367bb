import type { ErrorMessage, Result } from '@kindgi/protocol';

export type RunStatus = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';

/** A guardrail that failed on a run's output without halting it. */
export interface RunViolation {
  guardrailId: string;
  checkId: string;
  action: string;
  severity: string;
  reason?: string;
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
  output?: unknown;
  /** Why the run failed: a pack error message, or an API-level code such as `guardrail-violation`. */
  error?: { code: string; message: string; details?: Record<string, unknown> } | ErrorMessage;
  violations: RunViolation[];
  createdAt: string;
  updatedAt: string;
  startedAt?: string;
  finishedAt?: string;
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
  | { code: 'run-store-error'; message: string; cause?: unknown };

type Async<T> = Promise<Result<T, RunStoreError>>;

export type RunPatch = Partial<
  Pick<RunRecord, 'status' | 'output' | 'error' | 'violations' | 'startedAt' | 'finishedAt'>
>;

/** Where runs and their event journals persist. Newest runs list first. */
export interface RunStore {
  create(run: RunRecord): Async<RunRecord>;
  get(tenantId: string, runId: string): Async<RunRecord | null>;
  update(tenantId: string, runId: string, patch: RunPatch): Async<RunRecord>;
  list(
    tenantId: string,
    filter: RunFilter,
    cursor: string | undefined,
    limit: number,
  ): Async<{ data: RunRecord[]; nextCursor?: string }>;
  /** Appends an event, assigning the run's next sequence number. */
  appendEvent(tenantId: string, runId: string, event: { kind: string; data: unknown }): Async<RunEvent>;
  /** Events with a sequence greater than `afterSequence`, ascending. */
  listEvents(tenantId: string, runId: string, afterSequence: number): Async<RunEvent[]>;
}
