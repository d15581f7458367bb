import type { RunError } from '@kindgi/bindings';
import type { Result } from '@kindgi/protocol';
import type { PackCallFailure, RunWorkerError } from '@kindgi/run-worker';
import { ApiError } from './api-error.js';
import { apiErrorFromFailure } from './pack-errors.js';

/**
 * A run store's or the run worker's refusal as a REST error: a store failure is 503 (retryable), a missing
 * run 404, a finished one 409, a full queue 503 with `Retry-After`, a bad cursor 400.
 */
export function apiErrorFromRun(error: RunWorkerError): ApiError {
  if (error.code === 'run-not-found') {
    return new ApiError('run-not-found', error.message, error.runId === undefined ? undefined : { runId: error.runId });
  }
  if (error.code === 'run-already-terminal') return new ApiError('run-already-terminal', error.message);
  if (error.code === 'approval-not-found') return new ApiError('approval-not-found', error.message);
  if (error.code === 'approval-already-completed') {
    const { approvalId, status, decision } = error.approval;
    return new ApiError('approval-already-completed', error.message, { approvalId, status, decision });
  }
  // The seal held, so the store's own format changed under it (e.g. a restart with another store).
  if (error.code === 'invalid-cursor') {
    return new ApiError('bad-input', 'The cursor is not one this listing issued.', { param: 'cursor' });
  }
  // The store's message says which limit was reached: the pack's queue, or the tenant's share of it.
  if (error.code === 'run-queue-full') {
    return new ApiError('run-queue-full', `${error.message} Retry later.`, undefined, { 'retry-after': '5' });
  }
  return new ApiError('storage-unavailable', 'The run store failed; retry later.', { storeCode: error.code });
}

/** Unwraps a run store's or the worker's result in a route, throwing its REST error for the error handler. */
export function must<T>(result: Result<T, RunWorkerError>): T {
  if (result.kind === 'ok') return result.value;
  throw apiErrorFromRun(result.error);
}

/** A REST error as a run stores it: the same `{code, message, details}` for every kind of failure. */
export function runError(error: ApiError): RunError {
  return error.details === undefined
    ? { code: error.code, message: error.message }
    : { code: error.code, message: error.message, details: error.details };
}

/** A failed pack call or check as a run records it: its REST error (`createApp` gives this to the worker). */
export function runErrorFromFailure(failure: PackCallFailure): RunError {
  return runError(apiErrorFromFailure(failure));
}
