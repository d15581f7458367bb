import type { S3Credential, S3CredentialBinding } from '@kindgi/bindings';
import { err, ok, type Result } from '@kindgi/protocol';
import { type S3Failure, s3Error } from '../errors.js';
import { parseRawQuery } from './encoding.js';
import { checkSigV4Claim, parseSigV4, type SigV4Claim } from './parse.js';
import {
  canonicalRequest,
  constantTimeEqual,
  deriveSigningKey,
  type HeaderPairs,
  signHex,
  stringToSign,
} from './signing.js';

/** The parts of an HTTP request that SigV4 covers, as they came off the wire. */
export interface SigV4Request {
  method: string;
  rawPath: string;
  /** Without the leading `?`. */
  rawQuery: string;
  headers: HeaderPairs;
}

/** A request whose signature holds: who signed it and the key that verifies its chunk signatures. */
export interface VerifiedSigV4 {
  claim: SigV4Claim;
  credential: S3Credential;
  signingKey: Buffer;
}

/** Builds the lookup view `parseSigV4` reads from. */
export function sigV4Source(request: SigV4Request): {
  header(name: string): string | undefined;
  query: Map<string, string>;
} {
  const headers = new Map<string, string>();
  for (const [name, value] of request.headers) {
    const lower = name.toLowerCase();
    const prior = headers.get(lower);
    headers.set(lower, prior === undefined ? value : `${prior},${value}`);
  }
  const query = new Map<string, string>();
  for (const [name, value] of parseRawQuery(request.rawQuery)) if (!query.has(name)) query.set(name, value);
  return { header: (name) => headers.get(name), query };
}

/** The signature the request should carry, or `undefined` when a signed header is missing. */
export function expectedSignature(
  request: SigV4Request,
  claim: SigV4Claim,
  signingKey: Uint8Array,
): string | undefined {
  const canonical = canonicalRequest({
    method: request.method,
    rawPath: request.rawPath,
    rawQuery: request.rawQuery,
    headers: request.headers,
    signedHeaders: claim.signedHeaders,
    payloadHash: claim.payloadHash,
    presigned: claim.presigned,
  });
  if (canonical === undefined) return undefined;
  return signHex(signingKey, stringToSign(claim.amzDate, claim.scope, canonical));
}

/**
 * Verifies a request's SigV4 header or presigned signature: parse, clock and scope checks, credential lookup
 * (unknown → `InvalidAccessKeyId`, expired → `AccessDenied`), then a constant-time signature compare. The
 * payload itself is checked later, while it streams.
 */
export async function verifySigV4(
  request: SigV4Request,
  credentials: S3CredentialBinding,
  now: Date,
): Promise<Result<VerifiedSigV4, S3Failure>> {
  const parsed = parseSigV4(sigV4Source(request));
  if (parsed.kind === 'err') return parsed;
  const claim = parsed.value;
  const checked = checkSigV4Claim(claim, now);
  if (checked.kind === 'err') return checked;
  let credential: S3Credential | null;
  try {
    credential = await credentials.resolve(claim.accessKeyId);
  } catch {
    return err(s3Error('InternalError', 'The credential lookup failed.'));
  }
  if (credential === null) return err(s3Error('InvalidAccessKeyId'));
  if (credential.expiresAt !== undefined && credential.expiresAt.getTime() <= now.getTime()) {
    return err(s3Error('AccessDenied', 'The access key has expired.'));
  }
  const signingKey = deriveSigningKey(credential.secretKey, claim.scopeDate, claim.region, claim.service);
  const expected = expectedSignature(request, claim, signingKey);
  if (expected === undefined) {
    return err(s3Error('SignatureDoesNotMatch', 'A signed header is missing from the request.'));
  }
  if (!constantTimeEqual(expected, claim.signature)) return err(s3Error('SignatureDoesNotMatch'));
  return ok({ claim, credential, signingKey });
}
