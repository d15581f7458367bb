import { setTimeout as sleep } from 'node:timers/promises';
import { callDeadlineMs, err, type PackTransportError } from '@kindgi/protocol';
import type { PackCall, PackCallLayer, PackReply } from '../pack-calls.js';

/**
 * True when the pack is known not to have run the call: it was refused before delivery (`pack-unavailable`:
 * a 503, or a connection nothing accepted). Only such a call may be retried or requeued; a call that was
 * delivered and then failed, went silent or timed out may have run, and is never sent again.
 */
export function didNotRun(error: PackTransportError): boolean {
  return error.code === 'pack-unavailable';
}

/** How the retry layer spends its time. */
export interface RetryLayerOptions {
  /** The longest one call waits through refusals in all; it never waits past the call's deadline either. */
  budgetMs: number;
  /** Told before each retry (a metric). */
  onRetry?: (call: PackCall, refusal: PackTransportError) => void;
  /** Milliseconds on a monotonic clock (tests give their own). */
  now?: () => number;
}

function cancelled(): PackReply {
  return err({ code: 'pack-call-aborted', message: 'The call was cancelled while waiting to retry' });
}

function backoffMs(attempt: number): number {
  return Math.min(100 * 2 ** attempt, 1_000);
}

/**
 * Retries what a live pack service refused (503, `pack-unavailable` with its status): after its
 * `Retry-After` (else a short backoff), while the budget and the call's deadline allow, each try with what
 * is left of the deadline. A connection nothing accepted is answered at once, with its `Retry-After`:
 * no service is there to come back soon, so the caller (or a run's queue) comes back instead of holding
 * its connection here. Every other reply passes through untouched.
 */
export function retryLayer(options: RetryLayerOptions): PackCallLayer {
  const now = options.now ?? (() => performance.now());
  return (next) => async (call) => {
    const started = now();
    const deadlineMs = callDeadlineMs(call.deadlineMs);
    const boundMs = Math.min(options.budgetMs, deadlineMs);
    for (let attempt = 0; ; attempt++) {
      const remaining = Math.max(1, Math.round(deadlineMs - (now() - started)));
      const reply = await next(
        attempt === 0 && call.deadlineMs === deadlineMs ? call : { ...call, deadlineMs: remaining },
      );
      if (reply.kind === 'ok' || !didNotRun(reply.error) || reply.error.status !== 503) return reply;
      const waitMs = reply.error.retryAfterMs ?? backoffMs(attempt);
      if (now() - started + waitMs > boundMs) return reply;
      if (call.signal?.aborted) return cancelled();
      options.onRetry?.(call, reply.error);
      try {
        await sleep(waitMs, undefined, call.signal ? { signal: call.signal } : {});
      } catch {
        return cancelled();
      }
    }
  };
}
