import { createHash, createHmac } from 'node:crypto';
import { canonicalQuery, canonicalUri } from './encoding.js';

/** sha256 of the empty string, hex: the payload hash of a bodiless request and of each chunk's "previous". */
export const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

/** Header name/value pairs in wire order; a name may repeat. */
export type HeaderPairs = ReadonlyArray<readonly [string, string]>;

/** What a canonical request is built from: exactly what the client signed. */
export interface CanonicalRequestInput {
  method: string;
  /** The path as sent on the wire (still percent-encoded). */
  rawPath: string;
  /** The query as sent on the wire, without `?`. */
  rawQuery: string;
  headers: HeaderPairs;
  /** Lowercase, sorted names from `SignedHeaders`. */
  signedHeaders: readonly string[];
  payloadHash: string;
  presigned: boolean;
}

/** sha256 hex of a string or bytes. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** HMAC-SHA256 of a string under a key. */
export function hmac(key: Uint8Array | string, data: string): Buffer {
  return createHmac('sha256', key).update(data).digest();
}

const keyCache = new Map<string, Buffer>();

/** SigV4 key derivation (`kDate → kRegion → kService → kSigning`), memoised per secret and scope. */
export function deriveSigningKey(secretKey: string, date: string, region: string, service: string): Buffer {
  const cacheKey = `${secretKey}\n${date}\n${region}\n${service}`;
  const cached = keyCache.get(cacheKey);
  if (cached) return cached;
  const kDate = hmac(`AWS4${secretKey}`, date);
  const kRegion = hmac(kDate, region);
  const kService = hmac(kRegion, service);
  const kSigning = hmac(kService, 'aws4_request');
  if (keyCache.size > 1024) keyCache.clear();
  keyCache.set(cacheKey, kSigning);
  return kSigning;
}

/**
 * Canonical header lines for the signed names: values of repeated headers joined by `,`, trimmed, inner
 * whitespace runs collapsed. `undefined` when a signed header is missing.
 */
export function canonicalHeaders(headers: HeaderPairs, signedHeaders: readonly string[]): string | undefined {
  const values = new Map<string, string[]>();
  for (const [name, value] of headers) {
    const lower = name.toLowerCase();
    const list = values.get(lower);
    const clean = value.trim().replace(/\s+/g, ' ');
    if (list) list.push(clean);
    else values.set(lower, [clean]);
  }
  let out = '';
  for (const name of signedHeaders) {
    const list = values.get(name);
    if (!list) return undefined;
    out += `${name}:${list.join(',')}\n`;
  }
  return out;
}

/** The SigV4 canonical request, or `undefined` when a signed header is missing from the request. */
export function canonicalRequest(input: CanonicalRequestInput): string | undefined {
  const headers = canonicalHeaders(input.headers, input.signedHeaders);
  if (headers === undefined) return undefined;
  return [
    input.method.toUpperCase(),
    canonicalUri(input.rawPath),
    canonicalQuery(input.rawQuery, input.presigned),
    headers,
    input.signedHeaders.join(';'),
    input.payloadHash,
  ].join('\n');
}

/** `AWS4-HMAC-SHA256\n<amzDate>\n<scope>\n<sha256(canonical request)>`. */
export function stringToSign(amzDate: string, scope: string, canonical: string): string {
  return `AWS4-HMAC-SHA256\n${amzDate}\n${scope}\n${sha256Hex(canonical)}`;
}

/** The string a chunk signature signs (`STREAMING-AWS4-HMAC-SHA256-PAYLOAD`). */
export function chunkStringToSign(
  amzDate: string,
  scope: string,
  previousSignature: string,
  chunkHash: string,
): string {
  return `AWS4-HMAC-SHA256-PAYLOAD\n${amzDate}\n${scope}\n${previousSignature}\n${EMPTY_SHA256}\n${chunkHash}`;
}

/** The string a trailer signature signs; `trailerText` is every `name:value\n` line. */
export function trailerStringToSign(
  amzDate: string,
  scope: string,
  previousSignature: string,
  trailerText: string,
): string {
  return `AWS4-HMAC-SHA256-TRAILER\n${amzDate}\n${scope}\n${previousSignature}\n${sha256Hex(trailerText)}`;
}

/** Hex HMAC-SHA256 signature of a string to sign under a derived key. */
export function signHex(signingKey: Uint8Array, toSign: string): string {
  return createHmac('sha256', signingKey).update(toSign).digest('hex');
}

// The one constant-time compare (SHA-256 digests, so lengths do not show); kept under this name, which the
// S3 surface exports.
export { constantTimeEqual } from '@kindgi/protocol';
