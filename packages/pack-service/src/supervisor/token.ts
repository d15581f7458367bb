import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

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

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/** Compares a presented token with the expected one in constant time (lengths included, via digests). */
export function tokenMatches(presented: string | string[] | undefined, expected: string): boolean {
  if (typeof presented !== 'string') return false;
  return timingSafeEqual(digest(presented), digest(expected));
}
