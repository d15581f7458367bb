import type { RestErrorCode } from './codes.js';

/** A failure a handler or middleware throws; the app's error handler turns it into the envelope. */
export class ApiError extends Error {
  readonly code: RestErrorCode;
  readonly details: Record<string, unknown> | undefined;
  /** Extra response headers (e.g. `Retry-After`). */
  readonly headers: Record<string, string> | undefined;

  constructor(
    code: RestErrorCode,
    message: string,
    details?: Record<string, unknown>,
    headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.details = details;
    this.headers = headers;
  }
}

/** The wire shape of every /v1 error. */
export interface ErrorEnvelope {
  error: { code: string; message: string; details?: Record<string, unknown>; requestId: string };
}
