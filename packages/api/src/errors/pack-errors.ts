import type { PackReply } from '@kindgi/bindings';
import {
  type ErrorMessage,
  err,
  type PackErrorCode,
  type PackTransportError,
  type Result,
  type WireCause,
} from '@kindgi/protocol';
import { type ExpectedKind, type PackAnswer, type PackCallFailure, readPackReply } from '@kindgi/run-worker';
import { ApiError } from './api-error.js';
import type { RestErrorCode } from './codes.js';

const PACK_TO_REST: Record<PackErrorCode, RestErrorCode> = {
  'input-validation-failed': 'input-validation-failed',
  'output-validation-failed': 'output-validation-failed',
  'handler-import-failed': 'handler-import-failed',
  'handler-shape-invalid': 'handler-shape-invalid',
  'handler-throw': 'handler-throw',
  'check-shape-invalid': 'check-shape-invalid',
  'malformed-message': 'pack-protocol-error',
  'unknown-protocol-version': 'pack-protocol-error',
  'unexpected-message-kind': 'pack-protocol-error',
  'tool-not-in-pack': 'tool-not-found',
  'check-not-in-pack': 'guardrail-not-found',
  'tool-version-mismatch': 'tool-version-not-found',
  'deadline-exceeded': 'deadline-exceeded',
  cancelled: 'call-cancelled',
  'output-too-large': 'output-too-large',
};

/** A pack's `error` message as a REST error: validation issues and the thrown value's name/message kept. */
export function apiErrorFromPack(message: ErrorMessage): ApiError {
  const code = PACK_TO_REST[message.code] ?? 'pack-protocol-error';
  const details: Record<string, unknown> = { packCode: message.code };
  if (message.toolId !== undefined) details.toolId = message.toolId;
  if (message.checkId !== undefined) details.checkId = message.checkId;
  if (message.issues !== undefined) details.issues = message.issues;
  const cause = publicCause(message.cause);
  if (cause !== undefined) details.cause = cause;
  return new ApiError(code, message.message, details);
}

/** A failure to reach the pack at all as a REST error (503 when the call did not run and may be retried). */
export function apiErrorFromTransport(error: PackTransportError): ApiError {
  const details: Record<string, unknown> = { transportCode: error.code };
  if (error.status !== undefined) details.status = error.status;
  if (error.code === 'pack-unavailable') {
    const headers =
      error.retryAfterMs !== undefined
        ? { 'retry-after': String(Math.max(1, Math.ceil(error.retryAfterMs / 1000))) }
        : undefined;
    return new ApiError('pack-unavailable', error.message, details, headers);
  }
  if (error.code === 'pack-call-aborted') return new ApiError('call-cancelled', error.message, details);
  if (error.code === 'pack-reply-too-large') return new ApiError('output-too-large', error.message, details);
  // Refused before the pack: the names at fault (never a value) are what the caller needs to fix it.
  if (error.code === 'secret-missing' || error.code === 'secret-invalid') {
    return new ApiError(error.code, error.message, { ...error.details });
  }
  return new ApiError(error.code, error.message, details);
}

/**
 * A pack call's failure as a REST error: the transport failure, the pack's error, the wrong kind of message
 * or a malformed verdict. The one mapping every REST caller of a pack uses (routes and runs alike).
 */
export function apiErrorFromFailure(failure: PackCallFailure): ApiError {
  switch (failure.kind) {
    case 'transport':
      return apiErrorFromTransport(failure.error);
    case 'pack-error':
      return apiErrorFromPack(failure.message);
    case 'wrong-kind': {
      const call = failure.expected === 'result' ? 'a tool call' : 'a check';
      return new ApiError('pack-protocol-error', `The pack answered ${call} with '${failure.received}'.`);
    }
    case 'malformed-check':
      return new ApiError('pack-protocol-error', `The check's reply is malformed: ${failure.reason}`);
  }
}

/** A pack's reply to a call as the REST surface reads it: the answer expected, else its REST error. */
export function restAnswer<K extends ExpectedKind>(reply: PackReply, expected: K): Result<PackAnswer<K>, ApiError> {
  const answer = readPackReply(reply, expected);
  return answer.kind === 'ok' ? answer : err(apiErrorFromFailure(answer.error));
}

/** A thrown value without its stack: stacks stay in the pack's logs, not in API answers. */
function publicCause(cause: WireCause | undefined): unknown {
  if (cause === undefined) return undefined;
  if (cause !== null && typeof cause === 'object' && !Array.isArray(cause) && 'name' in cause && 'message' in cause) {
    return { name: cause.name, message: cause.message };
  }
  return cause;
}
