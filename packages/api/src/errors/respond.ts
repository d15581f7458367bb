import { randomUUID } from 'node:crypto';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { AppEnv } from '../env.js';
import { ApiError, type ErrorEnvelope } from './api-error.js';
import { statusFor } from './codes.js';

/** Builds the envelope response for an error; the request id comes from the request-id middleware. */
export function errorResponse(c: Context<AppEnv>, error: ApiError): Response {
  // Paths outside /health and /v1 (an unknown route) have no request-id middleware: make one here.
  const requestId = c.get('requestId') ?? `req-${randomUUID()}`;
  const body: ErrorEnvelope = { error: { code: error.code, message: error.message, requestId } };
  if (error.details !== undefined) body.error.details = error.details;
  const headers = new Headers({ 'content-type': 'application/json; charset=UTF-8' });
  headers.set('x-request-id', requestId);
  for (const [name, value] of Object.entries(error.headers ?? {})) headers.set(name, value);
  return new Response(JSON.stringify(body), { status: statusFor(error.code), headers });
}

/** Maps anything thrown to an ApiError: ours as is, Hono's body-parsing refusals as bad input, the rest as 500. */
export function toApiError(thrown: unknown): { error: ApiError; unexpected: boolean } {
  if (thrown instanceof ApiError) return { error: thrown, unexpected: false };
  if (thrown instanceof HTTPException) {
    if (thrown.status === 415) {
      return {
        error: new ApiError('bad-input', 'Unsupported Content-Type: this route takes application/json.'),
        unexpected: false,
      };
    }
    if (thrown.status === 413) {
      return { error: new ApiError('body-too-large', 'The request body is over the limit.'), unexpected: false };
    }
    if (thrown.status < 500) return { error: new ApiError('bad-input', thrown.message), unexpected: false };
  }
  return { error: new ApiError('internal-server-error', 'The server failed to handle the request.'), unexpected: true };
}
