import type { RunOutcome } from '@kindgi/bindings';
import type { PackTransportError } from '@kindgi/protocol';

const DEFAULT_RETRY_MS = 1_000;
const MAX_RETRY_MS = 30_000;

/** What to do with a run its pack refused: back to the queue for `delayMs`, or fail it with `outcome`. */
export type RequeuePlan = { kind: 'requeue'; delayMs: number } | { kind: 'give-up'; outcome: RunOutcome };

/**
 * A refused run waits for the pack's `Retry-After` (1 s when it gave none, at most 30 s) as long as it would
 * still start within `queueTimeoutMs` of being accepted; after that it fails as `pack-unavailable`.
 */
export function planRequeue(
  refusal: PackTransportError,
  createdAt: string,
  now: Date,
  queueTimeoutMs: number,
): RequeuePlan {
  const delayMs = Math.min(MAX_RETRY_MS, refusal.retryAfterMs ?? DEFAULT_RETRY_MS);
  const waited = now.getTime() - Date.parse(createdAt);
  if (waited + delayMs <= queueTimeoutMs) return { kind: 'requeue', delayMs };
  const message = `The pack stayed unavailable for ${Math.round(waited / 1000)} s: ${refusal.message}`;
  return { kind: 'give-up', outcome: { status: 'failed', error: { code: 'pack-unavailable', message } } };
}
