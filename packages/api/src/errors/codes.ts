/**
 * Every error code the /v1 surface answers with, and its HTTP status. This is the one definition: the
 * error handler, the docs (docs/API-ROUTE-CONVENTIONS.md) and the tests all read it.
 */
export const REST_ERROR_STATUS = {
  'validation-failed': 400,
  'bad-input': 400,
  'secret-name-invalid': 400,
  'secret-env-invalid': 400,
  'secret-value-invalid': 400,
  'unknown-field': 400,
  'blob-hash-mismatch': 400,
  'blob-size-mismatch': 400,
  'auth-missing': 401,
  'auth-invalid': 401,
  'route-not-found': 404,
  'blob-not-found': 404,
  'tool-not-found': 404,
  'tool-version-not-found': 404,
  'guardrail-not-found': 404,
  'run-not-found': 404,
  'agent-not-found': 404,
  'approval-not-found': 404,
  'secret-not-found': 404,
  'method-not-allowed': 405,
  'idempotency-key-body-mismatch': 409,
  'idempotency-key-in-flight': 409,
  'run-already-terminal': 409,
  'approval-already-completed': 409,
  'artifact-too-large': 413,
  'body-too-large': 413,
  'range-not-satisfiable': 416,
  'input-validation-failed': 422,
  'guardrail-violation': 422,
  'secret-missing': 422,
  'secret-invalid': 422,
  'too-many-streams': 429,
  'internal-server-error': 500,
  'guardrails-unsupported': 501,
  'agents-unsupported': 501,
  'output-validation-failed': 502,
  'output-too-large': 502,
  'handler-throw': 502,
  'handler-import-failed': 502,
  'handler-shape-invalid': 502,
  'check-shape-invalid': 502,
  'pack-protocol-error': 502,
  'pack-auth-failed': 502,
  'pack-connection-failed': 502,
  'pack-bad-reply': 502,
  'call-cancelled': 502,
  'authz-backend-unavailable': 503,
  'pack-unavailable': 503,
  'storage-unavailable': 503,
  'not-ready': 503,
  'run-queue-full': 503,
  'deadline-exceeded': 504,
} as const;

export type RestErrorCode = keyof typeof REST_ERROR_STATUS;
export type RestErrorStatus = (typeof REST_ERROR_STATUS)[RestErrorCode];

/** The HTTP status for a code; a code outside the table is a bug and answers 500. */
export function statusFor(code: string): RestErrorStatus {
  return (REST_ERROR_STATUS as Record<string, RestErrorStatus>)[code] ?? 500;
}
