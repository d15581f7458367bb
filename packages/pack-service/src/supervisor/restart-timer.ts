import type { RestartBackoff } from './types.js';

/** The restart delays used when the options give none. */
export const DEFAULT_RESTART_BACKOFF: Required<RestartBackoff> = { initialMs: 200, maxMs: 10_000, factor: 2 };

/** The delay before restart `attempt` (1-based): `initialMs * factor^(attempt-1)`, at most `maxMs`. */
export function restartDelayMs(backoff: Required<RestartBackoff>, attempt: number): number {
  return Math.min(backoff.maxMs, backoff.initialMs * backoff.factor ** (attempt - 1));
}

/** The clock the restart timer runs on (the global timers unless a test injects its own). */
export interface RestartClock {
  setTimeout(fire: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const globalClock: RestartClock = {
  setTimeout: (fire, ms) => setTimeout(fire, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/**
 * The one timer of a crashed child's next restart, with its backoff. Whether a restart is pending is the
 * lifecycle's to say (`restartPending`); this only owns the handle.
 */
export interface RestartTimer {
  /** Arms the timer for restart `attempt`, replacing any armed one; returns the delay it waits. */
  arm(attempt: number, fire: () => void): number;
  /** Disarms it (a `start()` or `stop()` decided what serves); nothing if none is armed. */
  cancel(): void;
}

/** A restart timer with `backoff` over the defaults, on `clock` (the global timers by default). */
export function createRestartTimer(backoff: RestartBackoff = {}, clock: RestartClock = globalClock): RestartTimer {
  const delays = { ...DEFAULT_RESTART_BACKOFF, ...backoff };
  // `undefined` when none is armed (or it fired).
  let handle: unknown;
  const cancel = (): void => {
    if (handle !== undefined) clock.clearTimeout(handle);
    handle = undefined;
  };
  return {
    arm(attempt, fire) {
      cancel();
      const delayMs = restartDelayMs(delays, attempt);
      handle = clock.setTimeout(() => {
        handle = undefined;
        fire();
      }, delayMs);
      return delayMs;
    },
    cancel,
  };
}
