import type { BlobChecksums, BlobError } from '@kindgi/bindings';
import { type BlobPutInput, MAX_MULTIPART_PARTS } from '@kindgi/bindings';
import { type BodyPlan, delegateSha256, planBody } from '../body-plan.js';
import { verifiedBody } from '../body-stream.js';
import { CHECKSUM_ALGORITHMS, storedChecksumType } from '../checksums.js';
import { type S3Failure, s3Error } from '../errors.js';
import { readObjectAttributes } from '../object-headers.js';
import type { S3Request } from '../request.js';
import { s3FailureOf } from '../storage-errors.js';
import { quoteEtag } from '../xml.js';
import type { S3Outcome } from './outcome.js';

/** ETag and verified checksums; an object (not a part) also names its checksum type, as S3 answers PutObject. */
function writeHeaders(etag: string, checksums: BlobChecksums, object: boolean): Headers {
  const headers = new Headers({ etag: quoteEtag(etag) });
  for (const algorithm of CHECKSUM_ALGORITHMS) {
    const value = checksums[algorithm];
    if (value !== undefined) headers.set(`x-amz-checksum-${algorithm}`, value);
  }
  const type = object ? storedChecksumType(checksums) : undefined;
  if (type !== undefined) headers.set('x-amz-checksum-type', type);
  return headers;
}

/** A storage failure of a body; a SHA-256 checksum header the storage checked is still answered `BadDigest`. */
function bodyFailure(error: BlobError, plan: BodyPlan, req: S3Request): S3Failure {
  if (plan.sha256ByStorage && error.code === 'blob-hash-mismatch' && error.algorithm === 'sha256') {
    return s3Error('BadDigest', 'The SHA256 you specified did not match the calculated checksum.');
  }
  return s3FailureOf(error, req.logger, req.requestId);
}

/** PutObject: the body streams through verification into the binding; visible only when every check passed. */
export async function putObject(req: S3Request, rawHeaders: Headers): Promise<S3Outcome> {
  const planned = planBody(req.header, req.auth);
  if (planned.kind === 'err') return planned.error;
  const plan = { kind: 'ok' as const, value: delegateSha256(planned.value) };
  const attributes = readObjectAttributes(rawHeaders);
  if (attributes.kind === 'err') return s3Error(attributes.error.code, attributes.error.message);
  const ifNoneMatch = req.header('if-none-match');
  if (ifNoneMatch !== undefined && ifNoneMatch.trim() !== '*') {
    return s3Error('NotImplemented', 'If-None-Match on PUT supports only "*".');
  }
  const ifMatch = req.header('if-match');
  const body = verifiedBody(req.body(), plan.value);
  const input: BlobPutInput = { name: req.key, bytes: body.bytes, checksums: body.checksums, ...attributes.value };
  if (plan.value.size !== undefined) input.size = plan.value.size;
  if (plan.value.expectedHash !== undefined) input.expectedHash = plan.value.expectedHash;
  if (plan.value.expectedMd5 !== undefined) input.expectedMd5 = plan.value.expectedMd5;
  if (ifNoneMatch !== undefined) input.ifNoneMatch = '*';
  if (ifMatch !== undefined) input.ifMatch = ifMatch.trim().replace(/^"|"$/g, '');
  const stored = await req.storage.putByKey(req.auth.credential.tenantId, req.bucket, req.key, input);
  if (stored.kind === 'err') return bodyFailure(stored.error, plan.value, req);
  return new Response(null, { status: 200, headers: writeHeaders(stored.value.etag, body.checksums, true) });
}

/** Reads and validates `partNumber` (1..10000). */
export function partNumberOf(req: S3Request): number | undefined {
  const text = req.query.get('partNumber') ?? '';
  if (!/^\d{1,5}$/.test(text)) return undefined;
  const n = Number(text);
  return n >= 1 && n <= MAX_MULTIPART_PARTS ? n : undefined;
}

/** UploadPart: the same body verification as PutObject, into the upload's part slot. */
export async function uploadPart(req: S3Request, uploadId: string): Promise<S3Outcome> {
  const partNumber = partNumberOf(req);
  if (partNumber === undefined) {
    return s3Error('InvalidArgument', 'Part number must be an integer between 1 and 10000, inclusive.');
  }
  const planned = planBody(req.header, req.auth);
  if (planned.kind === 'err') return planned.error;
  const plan = { kind: 'ok' as const, value: delegateSha256(planned.value) };
  const body = verifiedBody(req.body(), plan.value);
  const stored = await req.storage.uploadPart(req.auth.credential.tenantId, req.bucket, req.key, uploadId, partNumber, {
    bytes: body.bytes,
    ...(plan.value.size !== undefined ? { size: plan.value.size } : {}),
    ...(plan.value.expectedHash !== undefined ? { expectedHash: plan.value.expectedHash } : {}),
    ...(plan.value.expectedMd5 !== undefined ? { expectedMd5: plan.value.expectedMd5 } : {}),
    // Filled as the body ends (trailer checksums); storage reads it only after the bytes.
    checksums: body.checksums,
  });
  if (stored.kind === 'err') return bodyFailure(stored.error, plan.value, req);
  return new Response(null, { status: 200, headers: writeHeaders(stored.value.etag, body.checksums, false) });
}
