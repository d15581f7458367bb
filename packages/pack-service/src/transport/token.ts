import { randomBytes } from 'node:crypto';
import { secretMatcher } from '@kindgi/protocol';

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
 * The one token check of the service and the supervisor's front: @kindgi/protocol's `secretMatcher`
 * (SHA-256 digests compared in constant time, so neither the content nor the length of the expected token
 * shows in the timing). A repeated header (an array) never matches.
 */
export function tokenChecker(expected: string): (presented: string | string[] | undefined) => boolean {
  return secretMatcher(expected);
}
