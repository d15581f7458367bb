import { randomBytes } from 'node:crypto';

/** A supplied session token must be at least 32 characters of base64url. */
export const SESSION_TOKEN_PATTERN = /^[A-Za-z0-9_-]{32,}$/;

/** A fresh session token: 24 random bytes, base64url (32 characters). */
export function createSessionToken(): string {
  return randomBytes(24).toString('base64url');
}

/** True when `token` may be used as a session token. */
export function isValidSessionToken(token: string): boolean {
  return SESSION_TOKEN_PATTERN.test(token);
}

/**
 * The one token check of the service and the supervisor's front: compares a presented token with the
 * expected one in constant time for a given length (only a length mismatch answers early; the length of
 * a token is no secret). It compares UTF-16 code units with no early exit instead of encoding the token
 * to a Buffer for `timingSafeEqual`: two native calls and an allocation per call were most of the route's
 * cost, and code units also tell lone surrogates apart, which their UTF-8 replacement does not.
 */
export function tokenChecker(expected: string): (presented: string | string[] | undefined) => boolean {
  const length = expected.length;
  return (presented) => {
    if (typeof presented !== 'string' || presented.length !== length) return false;
    let diff = 0;
    for (let i = 0; i < length; i++) diff |= presented.charCodeAt(i) ^ expected.charCodeAt(i);
    return diff === 0;
  };
}
