import { DEFAULT_CALL_TIMEOUT_MS, SILENCE_GRACE_MS } from './constants.js';

/** A call's deadline in milliseconds: the caller's when it is a positive number, else the one default. */
export function callDeadlineMs(given: number | undefined): number {
  return given !== undefined && Number.isFinite(given) && given > 0 ? Math.ceil(given) : DEFAULT_CALL_TIMEOUT_MS;
}

/**
 * How long a caller waits for any reply to a call with this deadline before it counts the pack as silent:
 * the deadline plus `SILENCE_GRACE_MS`, so a pack always gets to answer `deadline-exceeded` itself first.
 */
export function silenceLimitMs(deadlineMs: number | undefined): number {
  return callDeadlineMs(deadlineMs) + SILENCE_GRACE_MS;
}
