import type { RunStoreError } from '@kindgi/bindings';
import type { Result } from '@kindgi/protocol';
import { ApiError } from '../errors/api-error.js';

/** Unwraps a run-store result; a store failure is 503 (retryable), a missing run 404. */
export function must<T>(result: Result<T, RunStoreError>): T {
  if (result.kind === 'ok') return result.value;
  if (result.error.code === 'run-not-found') throw new ApiError('run-not-found', result.error.message);
  throw new ApiError('storage-unavailable', 'The run store failed; retry later.', { storeCode: result.error.code });
}

/** Statuses after which a run never changes. */
export const TERMINAL_STATUSES: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);

/** The event kinds that end a run's stream. */
export const TERMINAL_EVENTS: ReadonlySet<string> = new Set(['run.completed', 'run.failed', 'run.cancelled']);
