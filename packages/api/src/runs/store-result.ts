import type { RunStoreError } from '@kindgi/bindings';
import type { Result } from '@kindgi/protocol';
import { ApiError } from '../errors/api-error.js';

/** Unwraps a run-store result; a store failure is 503 (retryable), a missing run 404, a bad cursor 400. */
export function must<T>(result: Result<T, RunStoreError>): T {
  if (result.kind === 'ok') return result.value;
  const { error } = result;
  if (error.code === 'run-not-found') throw new ApiError('run-not-found', error.message);
  if (error.code === 'run-already-terminal') throw new ApiError('run-already-terminal', error.message);
  // The seal held, so the store's own format changed under it (e.g. a restart with another store).
  if (error.code === 'invalid-cursor') {
    throw new ApiError('bad-input', 'The cursor is not one this listing issued.', { param: 'cursor' });
  }
  // The store's message says which limit was reached: the pack's queue, or the tenant's share of it.
  if (error.code === 'run-queue-full') {
    throw new ApiError('run-queue-full', `${error.message} Retry later.`, undefined, {
      'retry-after': '5',
    });
  }
  throw new ApiError('storage-unavailable', 'The run store failed; retry later.', { storeCode: error.code });
}

export { TERMINAL_RUN_STATUSES as TERMINAL_STATUSES } from '@kindgi/bindings';

/** The event kinds that end a run's stream. */
export const TERMINAL_EVENTS: ReadonlySet<string> = new Set(['run.completed', 'run.failed', 'run.cancelled']);
