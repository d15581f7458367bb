import { createHmac, randomBytes } from 'node:crypto';
import { constantTimeEqual } from '@kindgi/protocol';
import { ApiError } from '../errors/api-error.js';

/**
 * Seals a binding's page cursor so clients cannot forge or move one: the token binds the cursor to the
 * tenant and the listing (`scope`) with an HMAC. A token that fails the check is 400 `bad-input`.
 */
export interface CursorSealer {
  seal(scope: string, inner: string): string;
  /** The binding's cursor, or throws ApiError `bad-input`. */
  open(scope: string, token: string): string;
}

/** A sealer keyed by `secret`; without one, a random per-process key (cursors then die with the process). */
export function createCursorSealer(secret?: string | Uint8Array): CursorSealer {
  const key = secret === undefined ? randomBytes(32) : Buffer.from(secret);
  const mac = (scope: string, payload: string) =>
    createHmac('sha256', key).update(scope).update('\n').update(payload).digest();
  return {
    seal(scope, inner) {
      const payload = Buffer.from(inner, 'utf8').toString('base64url');
      return `${payload}.${mac(scope, payload).toString('base64url')}`;
    },
    open(scope, token) {
      const dot = token.indexOf('.');
      const payload = token.slice(0, dot);
      const signature = Buffer.from(token.slice(dot + 1), 'base64url');
      const expected = mac(scope, payload);
      if (dot <= 0 || !constantTimeEqual(expected, signature)) {
        throw new ApiError('bad-input', 'The cursor is not one this listing issued.', { param: 'cursor' });
      }
      return Buffer.from(payload, 'base64url').toString('utf8');
    },
  };
}
