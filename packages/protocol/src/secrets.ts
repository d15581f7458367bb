import { hash, timingSafeEqual } from 'node:crypto';

/** What an `Authorization` header holds for a bearer check. */
export type BearerHeader =
  /** No header, or only whitespace. */
  | { readonly kind: 'missing' }
  /** A header, but not `Bearer <token>` (another scheme, no token, or more than one word). */
  | { readonly kind: 'malformed' }
  | { readonly kind: 'token'; readonly token: string };

// RFC 7235: the scheme is case-insensitive; one token (any run of non-space characters) after it.
const BEARER = /^[ \t]*Bearer[ ]+([^\s]+)[ \t]*$/i;

/**
 * Reads `Authorization: Bearer <token>` (RFC 6750), the scheme in any case as RFC 7235 says.
 *
 * @example
 * parseBearer('bearer abc'); // { kind: 'token', token: 'abc' }
 * parseBearer('Basic dXNlcg=='); // { kind: 'malformed' }
 */
export function parseBearer(header: string | readonly string[] | undefined): BearerHeader {
  const value = typeof header === 'string' ? header : header?.[0];
  if (value === undefined || value.trim() === '') return { kind: 'missing' };
  const token = BEARER.exec(value)?.[1];
  return token === undefined ? { kind: 'malformed' } : { kind: 'token', token };
}

/**
 * The SHA-256 of a secret. Comparing digests (fixed size) instead of the secrets keeps the comparison's
 * timing free of the secrets' lengths; a string is hashed as UTF-16 code units, so no two strings share
 * one (UTF-8 would merge lone surrogates).
 */
export function secretDigest(secret: string | Uint8Array): Buffer {
  // The one-shot `hash` costs about half of a `createHash` object: this runs on every pack call.
  return hash('sha256', typeof secret === 'string' ? Buffer.from(secret, 'utf16le') : secret, 'buffer');
}

/**
 * Constant-time equality of two secrets of any length: their SHA-256 digests compared with
 * `timingSafeEqual`, so neither the content nor the lengths show in the time it takes.
 */
export function constantTimeEqual(expected: string | Uint8Array, actual: string | Uint8Array): boolean {
  return timingSafeEqual(secretDigest(expected), secretDigest(actual));
}

/**
 * A check of presented values against one expected secret (its digest computed once), in constant time
 * as `constantTimeEqual`. Anything but a string (an absent or repeated header) never matches.
 */
export function secretMatcher(expected: string): (presented: unknown) => boolean {
  const digest = secretDigest(expected);
  return (presented) => typeof presented === 'string' && timingSafeEqual(secretDigest(presented), digest);
}
