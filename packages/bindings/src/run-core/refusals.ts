import { err, messageOf, ok, type Result } from '@kindgi/protocol';
import type { RunRecord, RunStoreError } from '../runs.js';

// The refusals every run store words alike (the API passes their messages on), and the one place a thrown
// failure becomes a `RunStoreError`.

export const runNotFound = (runId: string): RunStoreError => ({ code: 'run-not-found', message: `No run '${runId}'.` });
export const runExists = (runId: string): RunStoreError => ({
  code: 'run-already-exists',
  message: `Run '${runId}' exists.`,
});
export const runQueueFull = (packId: string): RunStoreError => ({
  code: 'run-queue-full',
  message: `The queue of pack '${packId}' is full.`,
});
export const runTenantQueueFull = (tenantId: string, packId: string, limit: number): RunStoreError => ({
  code: 'run-queue-full',
  message: `Tenant '${tenantId}' has ${limit} runs waiting in the queue of pack '${packId}', the limit per tenant.`,
});
export const runLeaseLost = (runId: string): RunStoreError => ({
  code: 'run-lease-lost',
  message: `The lease on run '${runId}' is lost.`,
});
export const runAlreadyTerminal = (run: RunRecord): RunStoreError => ({
  code: 'run-already-terminal',
  message: `Run '${run.runId}' has finished.`,
  run,
});
export const runInvalidCursor = (): RunStoreError => ({
  code: 'invalid-cursor',
  message: 'The runs cursor is not one this store issued.',
});

/** A refusal thrown out of a transaction, so the adapter rolls it back; `attemptRun` returns its error. */
export class RunStoreFailure extends Error {
  constructor(readonly error: RunStoreError) {
    super(error.message);
  }
}

export function refuseRun(error: RunStoreError): never {
  throw new RunStoreFailure(error);
}

/** The value of an ok result; throws the refusal of an err one (inside a transaction: rolls it back). */
export function unwrapRun<T>(result: Result<T, RunStoreError>): T {
  return result.kind === 'ok' ? result.value : refuseRun(result.error);
}

function failed(cause: unknown): Result<never, RunStoreError> {
  if (cause instanceof RunStoreFailure) return err(cause.error);
  return err({ code: 'run-store-error', message: `run store failed: ${messageOf(cause)}`, cause });
}

/** Runs synchronous store work: a refusal it threw is its error, anything else `run-store-error`. */
export function attemptRun<T>(work: () => T): Result<T, RunStoreError> {
  try {
    return ok(work());
  } catch (cause) {
    return failed(cause);
  }
}

/** {@link attemptRun} for work that may be asynchronous. */
export async function attemptRunAsync<T>(work: () => T | Promise<T>): Promise<Result<T, RunStoreError>> {
  try {
    return ok(await work());
  } catch (cause) {
    return failed(cause);
  }
}
