import { err, ok, type Result } from '@kindgi/protocol';
import { type S3Failure, s3Error } from '../errors.js';

/** What a request claims about its signature, before anything is checked against a secret. */
export interface SigV4Claim {
  presigned: boolean;
  accessKeyId: string;
  /** `YYYYMMDD` from the credential scope. */
  scopeDate: string;
  region: string;
  service: string;
  /** `<date>/<region>/<service>/aws4_request`. */
  scope: string;
  /** `YYYYMMDDTHHMMSSZ` from `x-amz-date` or `X-Amz-Date` (or `Date`, when it is in that form and alone). */
  amzDate: string;
  /** The header the signing time came from, which must be signed; header auth only. */
  dateHeader?: 'x-amz-date' | 'date';
  signedHeaders: string[];
  /** Lowercase hex. */
  signature: string;
  /** Presigned only: seconds of validity, 1..604800. */
  expires?: number;
  /** The payload hash that goes into the canonical request. */
  payloadHash: string;
}

/** Header lookup by lowercase name, and decoded query parameters (first value wins). */
export interface SigV4Source {
  header(name: string): string | undefined;
  query: ReadonlyMap<string, string>;
}

const MAX_EXPIRES = 604_800;

function authInvalid(message: string): S3Failure {
  return s3Error('InvalidRequest', message, 403);
}

/** AWS's answer to Signature Version 2 (header `AWS <key>:<signature>` or `AWSAccessKeyId`/`Signature` query). */
const SIGV2_REFUSED = 'The authorization mechanism you have provided is not supported. Please use AWS4-HMAC-SHA256.';

function sigV2Refused(): S3Failure {
  return s3Error('InvalidRequest', SIGV2_REFUSED, 400);
}

function parseScope(
  credential: string,
): Result<Omit<SigV4Claim, 'presigned' | 'amzDate' | 'signedHeaders' | 'signature' | 'payloadHash'>, S3Failure> {
  const parts = credential.split('/');
  if (parts.length !== 5 || parts.some((part) => part === '') || parts[4] !== 'aws4_request') {
    return err(authInvalid('The credential must be <key>/<YYYYMMDD>/<region>/<service>/aws4_request.'));
  }
  const [accessKeyId, scopeDate, region, service] = parts as [string, string, string, string, string];
  return ok({ accessKeyId, scopeDate, region, service, scope: `${scopeDate}/${region}/${service}/aws4_request` });
}

function parsePresigned(source: SigV4Source): Result<SigV4Claim, S3Failure> {
  const { query } = source;
  if (query.get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256') {
    return err(authInvalid('X-Amz-Algorithm must be AWS4-HMAC-SHA256.'));
  }
  const credential = query.get('X-Amz-Credential');
  const amzDate = query.get('X-Amz-Date');
  const signedHeaders = query.get('X-Amz-SignedHeaders');
  const signature = query.get('X-Amz-Signature');
  if (!credential || !amzDate || !signedHeaders || !signature) {
    return err(
      s3Error(
        'AuthorizationQueryParametersError',
        'X-Amz-Credential, X-Amz-Date, X-Amz-SignedHeaders and X-Amz-Signature are required.',
      ),
    );
  }
  const expiresText = query.get('X-Amz-Expires') ?? String(MAX_EXPIRES);
  const expires = /^\d{1,7}$/.test(expiresText) ? Number(expiresText) : Number.NaN;
  if (!(expires >= 1 && expires <= MAX_EXPIRES)) {
    return err(
      s3Error('AuthorizationQueryParametersError', 'X-Amz-Expires must be an integer from 1 to 604800 seconds.'),
    );
  }
  const scope = parseScope(credential);
  if (scope.kind === 'err') return scope;
  const payloadHash = source.header('x-amz-content-sha256') ?? query.get('X-Amz-Content-Sha256') ?? 'UNSIGNED-PAYLOAD';
  return ok({
    ...scope.value,
    presigned: true,
    amzDate,
    signedHeaders: signedHeaders.split(';'),
    signature: signature.toLowerCase(),
    expires,
    payloadHash,
  });
}

function parseHeaderAuth(source: SigV4Source): Result<SigV4Claim, S3Failure> {
  const authorization = source.header('authorization');
  if (authorization === undefined) return err(s3Error('AccessDenied', 'The request carries no SigV4 credentials.'));
  const space = authorization.indexOf(' ');
  if (space > 0 && authorization.slice(0, space) === 'AWS') return err(sigV2Refused());
  if (space < 0 || authorization.slice(0, space) !== 'AWS4-HMAC-SHA256') {
    return err(authInvalid('The authorization mechanism must be AWS4-HMAC-SHA256.'));
  }
  const fields = new Map<string, string>();
  for (const item of authorization.slice(space + 1).split(',')) {
    const trimmed = item.trim();
    const eq = trimmed.indexOf('=');
    if (eq > 0) fields.set(trimmed.slice(0, eq), trimmed.slice(eq + 1));
  }
  const credential = fields.get('Credential');
  const signedHeaders = fields.get('SignedHeaders');
  const signature = fields.get('Signature');
  if (!credential || !signedHeaders || !signature) {
    return err(authInvalid('The Authorization header needs Credential, SignedHeaders and Signature.'));
  }
  // SigV4 takes the signing time from `Date` when no `x-amz-date` is sent and `Date` is ISO 8601 basic.
  const amzHeader = source.header('x-amz-date');
  const dateHeader = source.header('date')?.trim();
  const fromDate = amzHeader === undefined && dateHeader !== undefined && /^\d{8}T\d{6}Z$/.test(dateHeader);
  const amzDate = fromDate ? dateHeader : amzHeader;
  if (amzDate === undefined) {
    return err(s3Error('AccessDenied', 'The x-amz-date header (or a Date in ISO 8601 basic form) is required.'));
  }
  const scope = parseScope(credential);
  if (scope.kind === 'err') return scope;
  return ok({
    ...scope.value,
    presigned: false,
    amzDate,
    dateHeader: fromDate ? 'date' : 'x-amz-date',
    signedHeaders: signedHeaders.split(';'),
    signature: signature.toLowerCase(),
    payloadHash: source.header('x-amz-content-sha256') ?? 'UNSIGNED-PAYLOAD',
  });
}

/**
 * Reads the SigV4 claim from a presigned query (when `X-Amz-Algorithm` is present) or the Authorization header.
 * Signature Version 2 is refused as AWS refuses it in SigV4-only regions (400 `InvalidRequest`), so a client
 * presigning with it by default (boto3 with a custom endpoint) learns what to change, not that it is unsigned.
 */
export function parseSigV4(source: SigV4Source): Result<SigV4Claim, S3Failure> {
  if (source.query.has('X-Amz-Algorithm')) return parsePresigned(source);
  const sigV2Query = source.query.has('AWSAccessKeyId') && source.query.has('Signature');
  if (sigV2Query && source.header('authorization') === undefined) return err(sigV2Refused());
  return parseHeaderAuth(source);
}

const SKEW_SECONDS = 900;

/** Parses `YYYYMMDDTHHMMSSZ` to epoch milliseconds, or NaN. */
export function parseAmzDate(amzDate: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
  if (!m) return Number.NaN;
  const [, y, mo, d, h, mi, s] = m.map(Number) as [number, number, number, number, number, number, number];
  const ms = Date.UTC(y, mo - 1, d, h, mi, s);
  const back = new Date(ms);
  // Reject dates that Date.UTC silently rolls over (month 13, day 32, hour 25).
  if (back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d || back.getUTCHours() !== h) return Number.NaN;
  return ms;
}

/** Checks the claim's date, scope date, skew or expiry and signed-header list against the server clock. */
export function checkSigV4Claim(claim: SigV4Claim, now: Date): Result<void, S3Failure> {
  const signedAt = parseAmzDate(claim.amzDate);
  if (Number.isNaN(signedAt)) return err(s3Error('AccessDenied', 'The signed date must be YYYYMMDDTHHMMSSZ.'));
  if (claim.scopeDate !== claim.amzDate.slice(0, 8)) {
    return err(s3Error('SignatureDoesNotMatch', 'The credential scope date does not match the signed date.'));
  }
  const delta = (signedAt - now.getTime()) / 1000;
  if (delta > SKEW_SECONDS || (!claim.presigned && delta < -SKEW_SECONDS)) {
    return err(s3Error('RequestTimeTooSkewed'));
  }
  if (claim.presigned && now.getTime() > signedAt + (claim.expires ?? MAX_EXPIRES) * 1000) {
    return err(s3Error('AccessDenied', 'Request has expired'));
  }
  const names = claim.signedHeaders;
  const wellFormed =
    names.length > 0 &&
    names.every((name, i) => name !== '' && name === name.toLowerCase() && (i === 0 || names[i - 1]! < name));
  if (!wellFormed) return err(authInvalid('SignedHeaders must be lowercase, sorted, unique and non-empty.'));
  const required = claim.presigned ? ['host'] : ['host', 'x-amz-content-sha256', claim.dateHeader ?? 'x-amz-date'];
  const missing = required.filter((name) => !names.includes(name));
  if (missing.length > 0) return err(s3Error('AccessDenied', `These headers must be signed: ${missing.join(', ')}.`));
  return ok(undefined);
}
