/** Codes a handler or check run can end with (the handler runner's errors). */
export const HANDLER_ERROR_CODES = [
  'input-validation-failed',
  'output-validation-failed',
  'handler-import-failed',
  'handler-shape-invalid',
  'handler-throw',
  'check-shape-invalid',
] as const;

/** Codes the protocol layer itself produces (parsing, dispatch, deadlines). */
export const DISPATCH_ERROR_CODES = [
  'malformed-message',
  'unknown-protocol-version',
  'unexpected-message-kind',
  'tool-not-in-pack',
  'check-not-in-pack',
  'tool-version-mismatch',
  'deadline-exceeded',
  'cancelled',
  /** The reply would pass the service's output limit (`KINDGI_PACK_SERVICE_MAX_OUTPUT_BYTES`). */
  'output-too-large',
] as const;

/** Every `code` an `error` message may carry on the wire. */
export const PACK_ERROR_CODES = [...HANDLER_ERROR_CODES, ...DISPATCH_ERROR_CODES] as const;

export type HandlerErrorCode = (typeof HANDLER_ERROR_CODES)[number];
export type DispatchErrorCode = (typeof DISPATCH_ERROR_CODES)[number];
export type PackErrorCode = (typeof PACK_ERROR_CODES)[number];

const packErrorCodes: ReadonlySet<string> = new Set(PACK_ERROR_CODES);

/** True for a code defined by protocol v2. */
export function isPackErrorCode(code: unknown): code is PackErrorCode {
  return typeof code === 'string' && packErrorCodes.has(code);
}

/**
 * Failures of reaching a pack service at all (client side, never on the pack wire): the call did not
 * produce a protocol message.
 */
export const PACK_TRANSPORT_ERROR_CODES = [
  /** The service answered 503 (not ready, draining, overloaded, no child): the call did not run. */
  'pack-unavailable',
  /** The service refused the token (401). */
  'pack-auth-failed',
  /** A connection failed or died mid-call (or 502 from a supervisor): the call may have run. */
  'pack-connection-failed',
  /** The service answered with something that is not a protocol message. */
  'pack-bad-reply',
  /** The caller's signal aborted the call before a reply arrived. */
  'pack-call-aborted',
  /** The reply passed the client's `maxReplyBytes`: reading stopped there (the call did run). */
  'pack-reply-too-large',
  /** A secret the tool declares is not set for the call's tenant: refused before the pack (it did not run). */
  'secret-missing',
  /** A secret the tool declares fails its schema: refused before the pack (it did not run). */
  'secret-invalid',
] as const;

export type PackTransportErrorCode = (typeof PACK_TRANSPORT_ERROR_CODES)[number];

/** Why a call to a pack service produced no protocol message. */
export interface PackTransportError {
  readonly code: PackTransportErrorCode;
  readonly message: string;
  /** The HTTP status, when one arrived. */
  readonly status?: number;
  /** From `Retry-After`, when the service sent one. */
  readonly retryAfterMs?: number;
  /** What a refusal names (the secrets at fault, by name only). */
  readonly details?: Readonly<Record<string, unknown>>;
}
