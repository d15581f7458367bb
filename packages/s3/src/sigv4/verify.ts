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

/** What a server accepts in a credential scope besides the date. */
export interface SigV4Scope {
  /** Accepted regions; the first is the one an error names. Default `['us-east-1']`. */
  regions?: readonly string[];
}

/**
 * The scope must name the service `s3` and an accepted region. As AWS does, another answers
 * `AuthorizationHeaderMalformed` (`AuthorizationQueryParametersError` when presigned) naming the expected one.
 */
export function checkSigV4Scope(claim: SigV4Claim, scope: SigV4Scope = {}): Result<void, S3Failure> {
  const regions = scope.regions !== undefined && scope.regions.length > 0 ? scope.regions : ['us-east-1'];
  const code = claim.presigned ? 'AuthorizationQueryParametersError' : 'AuthorizationHeaderMalformed';
  const what = claim.presigned
    ? 'Error parsing the X-Amz-Credential parameter'
    : 'The authorization header is malformed';
  if (claim.service !== 's3') {
    return err(s3Error(code, `${what}; incorrect service "${claim.service}". This endpoint belongs to "s3".`));
  }
  if (!regions.includes(claim.region)) {
    const failure = s3Error(code, `${what}; the region '${claim.region}' is wrong; expecting '${regions[0]}'`);
    return err({ ...failure, region: regions[0] as string });
  }
  return ok(undefined);
}

/**
 * Verifies a request's SigV4 header or presigned signature: parse (a SigV2 signature → 400 `InvalidRequest`,
 * none at all → 403 `AccessDenied`), clock and scope checks (service `s3`, an accepted region), credential
 * lookup (unknown → `InvalidAccessKeyId`, expired → `AccessDenied`), then a constant-time signature compare.
 * The payload itself is checked later, while it streams.
 */
export async function verifySigV4(
  request: SigV4Request,
  credentials: S3CredentialBinding,
  now: Date,
  scope: SigV4Scope = {},
): Promise<Result<VerifiedSigV4, S3Failure>> {
  const parsed = parseSigV4(sigV4Source(request));
  if (parsed.kind === 'err') return parsed;
  const claim = parsed.value;
  const checked = checkSigV4Claim(claim, now);
  if (checked.kind === 'err') return checked;
  const scoped = checkSigV4Scope(claim, scope);
  if (scoped.kind === 'err') return scoped;
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
