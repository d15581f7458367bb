import { randomBytes, timingSafeEqual } from 'node:crypto';

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
 * expected one in constant time. Buffers of equal length are compared; a length mismatch still pays for
 * one comparison, so the time says nothing about the token's bytes. The expected bytes are made once.
 */
export function tokenChecker(expected: string): (presented: string | string[] | undefined) => boolean {
  const expectedBytes = Buffer.from(expected, 'utf8');
  return (presented) => {
    if (typeof presented !== 'string') return false;
    const bytes = Buffer.from(presented, 'utf8');
    if (bytes.length !== expectedBytes.length) {
      timingSafeEqual(expectedBytes, expectedBytes);
      return false;
    }
    return timingSafeEqual(bytes, expectedBytes);
  };
}
