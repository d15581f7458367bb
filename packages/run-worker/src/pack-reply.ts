import type { PackReply, RunError } from '@kindgi/bindings';
import { type ErrorMessage, err, ok, type PackResponse, type PackTransportError, type Result } from '@kindgi/protocol';

/** The message a call expects when it works: a tool call's `result`, a check's `check-result`. */
export type ExpectedKind = 'result' | 'check-result';

/** The answer of kind `K`. */
export type PackAnswer<K extends ExpectedKind> = Extract<PackResponse, { kind: K }>;

/**
 * Why a pack call gave no usable answer, in no surface's words yet: each surface names it once (the REST
 * surface in `@kindgi/api`'s `errors/pack-errors.ts`, which runs store too).
 */
export type PackCallFailure =
  /** No message came back (the transport's reason, and whether the call ran). */
  | { kind: 'transport'; error: PackTransportError }
  /** The pack answered with an `error` message. */
  | { kind: 'pack-error'; message: ErrorMessage }
  /** The pack answered with another message than the call expects. */
  | { kind: 'wrong-kind'; expected: ExpectedKind; received: string }
  /** A check's verdict the protocol's parser refuses. */
  | { kind: 'malformed-check'; reason: string };

/** How a caller names a failure in a run record (`createApp` gives the REST mapping). */
export type DescribeFailure = (failure: PackCallFailure) => RunError;

/** A pack's reply read as the answer `expected`, or the failure it is instead. */
export function readPackReply<K extends ExpectedKind>(
  reply: PackReply,
  expected: K,
): Result<PackAnswer<K>, PackCallFailure> {
  if (reply.kind === 'err') return err({ kind: 'transport', error: reply.error });
  const message = reply.value;
  if (message.kind === 'error') return err({ kind: 'pack-error', message });
  if (message.kind !== expected) return err({ kind: 'wrong-kind', expected, received: message.kind });
  return ok(message as PackAnswer<K>);
}
