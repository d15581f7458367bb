import { setTimeout as sleep } from 'node:timers/promises';
import type { RunStoreError } from '@kindgi/bindings';
import type { Result } from '@kindgi/protocol';

/** How long a store write is retried while the store fails, and how the waits between attempts grow. */
export interface RetryPlan {
  /** No attempt starts later than this after the first one. */
  totalMs: number;
  /** The first wait; each next one doubles up to `maxDelayMs`. */
  firstDelayMs: number;
  maxDelayMs: number;
}

/**
 * Calls `attempt` until the store answers: only `run-store-error` (unreachable, or failed for a reason of its
 * own) is tried again, after exponentially growing waits with jitter (so servers coming back together do not
 * retry in step), for at most `plan.totalMs` or until `signal` aborts. A refusal (`run-lease-lost`, …) is an
 * answer and ends it at once. `onFailure` hears every failed attempt (`tries` counts from 1). Returns the last
 * result.
 */
export async function retryStoreWrite<T>(
  attempt: () => Promise<Result<T, RunStoreError>>,
  plan: RetryPlan,
  signal: AbortSignal,
  onFailure: (error: RunStoreError, tries: number) => void,
): Promise<Result<T, RunStoreError>> {
  const started = Date.now();
  let delay = plan.firstDelayMs;
  for (let tries = 1; ; tries++) {
    const result = await attempt();
    if (result.kind === 'ok' || result.error.code !== 'run-store-error') return result;
    onFailure(result.error, tries);
    const wait = Math.round(delay * (0.5 + Math.random() / 2));
    if (signal.aborted || Date.now() + wait - started > plan.totalMs) return result;
    try {
      await sleep(wait, undefined, { signal });
    } catch {
      // Aborted: one last attempt would race the shutdown that aborted it.
      return result;
    }
    delay = Math.min(plan.maxDelayMs, delay * 2);
  }
}
