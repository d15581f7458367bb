import type { BlobBody, BlobChecksums, BlobError, BlobMeta, BlobReadResult, ByteRange } from '@kindgi/bindings';
import { MAX_KEY_BYTES } from '@kindgi/bindings';
import { err, ok, type Result } from '@kindgi/protocol';
import { MAX_PUT_BYTES } from '../body-plan.js';
import { type ChecksumAlgorithm, createChecksummer } from '../checksums.js';
import { evaluateConditions } from '../conditions.js';
import { type S3Failure, s3Error } from '../errors.js';
import { decodeKey, headerText, type S3Request } from '../request.js';
import { s3FailureOf } from '../storage-errors.js';

/** The object an `x-amz-copy-source` header names. */
export interface CopySource {
  bucket: string;
  key: string;
}

/** A source opened for copying: its metadata and a read of the bytes to copy (all, or `range`). */
export interface OpenedSource {
  source: CopySource;
  meta: BlobMeta;
  read: BlobReadResult;
  range?: ByteRange;
}

const NAMES_BOTH = 'Copy Source must mention the source bucket and key: sourcebucket/sourcekey';
const RANGE_FORM =
  'The x-amz-copy-source-range value must be of the form bytes=first-last where first and last are the ' +
  'zero-based offsets of the first and last bytes to copy';

/**
 * Reads `x-amz-copy-source`: `bucket/key` or `/bucket/key`, percent-encoded, optionally `?versionId=null`
 * (the only version this unversioned surface has). The whole value is decoded before splitting, so a client
 * that encodes the separating slash too is understood.
 */
export function parseCopySource(value: string): Result<CopySource, S3Failure> {
  const question = value.indexOf('?');
  const path = question < 0 ? value : value.slice(0, question);
  if (question >= 0) {
    const versionId = new URLSearchParams(value.slice(question + 1)).get('versionId');
    if (versionId !== null && versionId !== 'null') {
      return err(s3Error('InvalidArgument', 'Invalid version id specified'));
    }
  }
  // Clients percent-encode the value; one that sends raw UTF-8 gets it read as such, as metadata values are.
  const decoded = decodeKey(headerText(path.trim()));
  if (typeof decoded !== 'string') return err(decoded);
  const text = decoded.startsWith('/') ? decoded.slice(1) : decoded;
  const slash = text.indexOf('/');
  if (slash <= 0 || slash === text.length - 1) return err(s3Error('InvalidArgument', NAMES_BOTH));
  const key = text.slice(slash + 1);
  if (Buffer.byteLength(key) > MAX_KEY_BYTES) return err(s3Error('KeyTooLongError'));
  return ok({ bucket: text.slice(0, slash), key });
}

/**
 * `x-amz-copy-source-range`: exactly `bytes=first-last` (no open or suffix forms), inside the source. A value of
 * another form and a range outside the source are both `InvalidArgument`, as AWS S3 answers them.
 */
export function parseCopyRange(value: string, size: number): Result<ByteRange, S3Failure> {
  const match = /^\s*bytes=(\d{1,16})-(\d{1,16})\s*$/.exec(value);
  if (!match) return err(s3Error('InvalidArgument', RANGE_FORM));
  const start = Number(match[1]);
  const end = Number(match[2]);
  if (start > end || end >= size) {
    return err(s3Error('InvalidArgument', `Range specified is not valid for source object of size: ${size}`));
  }
  return ok({ start, end });
}

/**
 * The `x-amz-copy-source-if-*` headers against the source, with the precedence of the plain conditionals
 * (a matching If-Match overrides a failing If-Unmodified-Since; If-None-Match decides over If-Modified-Since).
 * For a copy every failure, "not modified" included, is 412.
 */
export function copyConditionsHold(req: S3Request, meta: BlobMeta): boolean {
  return evaluateConditions((name) => req.header(`x-amz-copy-source-${name}`), meta) === 'proceed';
}

/** Drops a read that will not be streamed, so a file-backed storage releases its handle. */
export async function releaseRead(read: BlobReadResult): Promise<void> {
  await read.stream.cancel().catch(() => undefined);
}

function tooLarge(): S3Failure {
  return s3Error(
    'InvalidRequest',
    `The specified copy source is larger than the maximum allowable size for a copy source: ${MAX_PUT_BYTES}`,
  );
}

function checkedSource(req: S3Request, meta: BlobMeta, length: number): S3Failure | undefined {
  if (!copyConditionsHold(req, meta)) return s3Error('PreconditionFailed');
  if (length > MAX_PUT_BYTES) return tooLarge();
  return undefined;
}

async function openWhole(req: S3Request, source: CopySource): Promise<OpenedSource | S3Failure> {
  const read = await req.storage.getByKey(req.tenantId, source.bucket, source.key);
  if (read.kind === 'err') return s3FailureOf(read.error, req.logger, req.requestId);
  const failure = checkedSource(req, read.value.meta, read.value.meta.size);
  if (failure !== undefined) {
    await releaseRead(read.value);
    return failure;
  }
  return { source, meta: read.value.meta, read: read.value };
}

async function openRange(req: S3Request, source: CopySource, rangeText: string): Promise<OpenedSource | S3Failure> {
  // The range is checked against the size first; the object may be replaced before the ranged read, so the
  // read must be of the very blob that was checked (blobs never change under their id).
  for (let attempt = 0; attempt < 3; attempt++) {
    const head = await req.storage.headByKey(req.tenantId, source.bucket, source.key);
    if (head.kind === 'err') return s3FailureOf(head.error, req.logger, req.requestId);
    if (head.value === null) return s3Error('NoSuchKey');
    const meta = head.value;
    const range = parseCopyRange(rangeText, meta.size);
    if (range.kind === 'err') return range.error;
    const failure = checkedSource(req, meta, range.value.end - range.value.start + 1);
    if (failure !== undefined) return failure;
    const read = await req.storage.getByKey(req.tenantId, source.bucket, source.key, { range: range.value });
    if (read.kind === 'err') {
      if (read.error.code === 'blob-not-found') return s3Error('NoSuchKey');
      return s3FailureOf(read.error, req.logger, req.requestId);
    }
    if (read.value.meta.blobId === meta.blobId) return { source, meta, read: read.value, range: range.value };
    await releaseRead(read.value);
  }
  req.logger.error('s3: copy source kept changing', { requestId: req.requestId, key: source.key });
  return s3Error('InternalError');
}

/**
 * Parses `x-amz-copy-source`, checks the credential may read its bucket, and opens the source (the
 * `x-amz-copy-source-range` part of it when `rangeText` is given) after its conditions and size passed.
 */
export async function openCopySource(req: S3Request, rangeText?: string): Promise<OpenedSource | S3Failure> {
  const parsed = parseCopySource(req.header('x-amz-copy-source') ?? '');
  if (parsed.kind === 'err') return parsed.error;
  // One credential is granted one bucket: any other bucket is not this credential's to read.
  if (parsed.value.bucket !== req.auth.credential.bucket) {
    return s3Error('AccessDenied', 'This access key is not granted the copy source bucket.');
  }
  return rangeText === undefined ? openWhole(req, parsed.value) : openRange(req, parsed.value, rangeText);
}

/**
 * The bytes of an opened source as a body to store; with `compute`, those checksums are added to `into` once
 * the last byte went through (storage reads a put's checksums only after its bytes).
 */
export function copyBody(read: BlobReadResult, compute: readonly ChecksumAlgorithm[], into: BlobChecksums): BlobBody {
  const bytes: BlobBody = read.bytes ?? read.stream;
  if (compute.length === 0) return bytes;
  const running = compute.map((algorithm) => [algorithm, createChecksummer(algorithm)] as const);
  async function* checksummed(): AsyncGenerator<Uint8Array> {
    const chunks: AsyncIterable<Uint8Array> | Uint8Array[] =
      bytes instanceof Uint8Array ? [bytes] : (bytes as AsyncIterable<Uint8Array>);
    for await (const chunk of chunks) {
      for (const [, checksum] of running) checksum.update(chunk);
      yield chunk;
    }
    for (const [algorithm, checksum] of running) into[algorithm] = await checksum.digestBase64();
  }
  return checksummed();
}

/**
 * A failed store of copied bytes. The source was read by our own code, so a short or differing read (the
 * source failing or changing under the read) is the server's fault: 500, which clients retry.
 */
export function copyFailureOf(error: BlobError, req: S3Request): S3Failure {
  if (error.code === 'blob-hash-mismatch' || error.code === 'blob-size-mismatch' || error.code === 'blob-body-failed') {
    req.logger.error('s3: copying the source failed', { requestId: req.requestId, message: error.message });
    return s3Error('InternalError');
  }
  return s3FailureOf(error, req.logger, req.requestId);
}
