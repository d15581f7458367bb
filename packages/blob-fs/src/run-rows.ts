import type { RunRecord, RunStoreError } from '@kindgi/bindings';
import { err, messageOf, ok, type Result } from '@kindgi/protocol';

// The row shape, JSON and cursor helpers of the SQLite run store.

export class RunStoreFailure extends Error {
  constructor(readonly error: RunStoreError) {
    super(error.message);
  }
}

export function attempt<T>(run: () => T): Result<T, RunStoreError> {
  try {
    return ok(run());
  } catch (cause) {
    if (cause instanceof RunStoreFailure) return err(cause.error);
    const message = messageOf(cause);
    return err({ code: 'run-store-error', message: `run store failed: ${message}`, cause });
  }
}

export const fail = (error: RunStoreError): never => {
  throw new RunStoreFailure(error);
};
export const notFound = (runId: string): never =>
  fail({ code: 'run-not-found', message: `run ${runId} does not exist` });
export const leaseLost = (runId: string): never =>
  fail({ code: 'run-lease-lost', message: `the lease on run ${runId} is lost` });

/** JSON that must round-trip: `undefined` at the top (no data) is stored as null. */
export function toJson(value: unknown): string {
  const text = JSON.stringify(value ?? null);
  if (text === undefined) throw new TypeError('the value cannot be stored as JSON');
  return text;
}

export function encodeCursor(seq: number): string {
  return Buffer.from(JSON.stringify({ v: 1, s: seq }), 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): number {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { v?: unknown; s?: unknown };
    if (parsed.v === 1 && Number.isSafeInteger(parsed.s)) return parsed.s as number;
  } catch {
    // Falls through to the typed error below.
  }
  return fail({ code: 'run-store-error', message: 'the runs cursor is not valid' });
}

export interface RunRow {
  seq: number;
  record: string;
  output: string | null;
  job: string;
  status: string;
  attempts: number;
  lease_owner: string | null;
  lease_expires_at: number | null;
  last_event: number;
}

/** The listed record: without the output (older databases kept it inside the record). */
export function listed(row: Pick<RunRow, 'record'>): RunRecord {
  const { output: _output, ...run } = JSON.parse(row.record) as RunRecord;
  return run;
}

export function full(row: RunRow): RunRecord {
  const run = JSON.parse(row.record) as RunRecord;
  if (row.output !== null) run.output = JSON.parse(row.output);
  return run;
}
