import type { BlobMeta, BlobReadResult } from '@kindgi/bindings';
import { evaluateConditions, evaluateRange } from '../conditions.js';
import { s3Error } from '../errors.js';
import { httpDate, objectHeaders } from '../object-headers.js';
import type { S3Request } from '../request.js';
import { s3FailureOf } from '../storage-errors.js';
import { quoteEtag } from '../xml.js';
import type { S3Outcome } from './outcome.js';

type Fetched = { meta: BlobMeta; read?: BlobReadResult } | S3Outcome;

/**
 * The object's metadata, and for a GET without Range its bytes too, in a single storage call: a full read
 * needs no size up front, so the common case costs one lookup instead of two.
 */
async function fetchObject(req: S3Request): Promise<Fetched> {
  const tenantId = req.auth.credential.tenantId;
  if (req.method === 'GET' && req.header('range') === undefined) {
    const read = await req.storage.getByKey(tenantId, req.bucket, req.key);
    if (read.kind === 'ok') return { meta: read.value.meta, read: read.value };
    return read.error.code === 'blob-not-found'
      ? s3Error('NoSuchKey')
      : s3FailureOf(read.error, req.logger, req.requestId);
  }
  const head = await req.storage.headByKey(tenantId, req.bucket, req.key);
  if (head.kind === 'err') return s3FailureOf(head.error, req.logger, req.requestId);
  return head.value === null ? s3Error('NoSuchKey') : { meta: head.value };
}

async function discard(read: BlobReadResult | undefined): Promise<void> {
  await read?.stream.cancel().catch(() => undefined);
}

/** GetObject and HeadObject: conditionals, one byte range, metadata and (full objects) checksums. */
export async function readObject(req: S3Request): Promise<S3Outcome> {
  const fetched = await fetchObject(req);
  if (fetched instanceof Response || !('meta' in fetched)) return fetched;
  const { meta, read } = fetched;

  const condition = evaluateConditions(req.header, meta);
  if (condition !== 'proceed') {
    await discard(read);
    if (condition === 'precondition-failed') return s3Error('PreconditionFailed');
    const headers = new Headers({ etag: quoteEtag(meta.etag), 'last-modified': httpDate(meta.createdAt) });
    return new Response(null, { status: 304, headers });
  }

  const range = evaluateRange(req.header('range'), meta.size);
  if (range.kind === 'unsatisfiable') {
    return { ...s3Error('InvalidRange'), headers: { 'content-range': `bytes */${meta.size}` } };
  }
  const full = range.kind === 'full';
  // S3 answers stored checksums only when asked (`x-amz-checksum-mode: ENABLED`, in the query when
  // presigned), and only for the whole object.
  const mode = req.header('x-amz-checksum-mode') ?? req.query.get('x-amz-checksum-mode');
  const checksumMode = mode?.trim().toUpperCase() === 'ENABLED';
  const headers = objectHeaders(meta, req.query, full && checksumMode);
  const length = full ? meta.size : range.range.end - range.range.start + 1;
  headers.set('content-length', String(length));
  if (!full) headers.set('content-range', `bytes ${range.range.start}-${range.range.end}/${meta.size}`);
  const status = full ? 200 : 206;
  if (req.method === 'HEAD') return new Response(null, { status, headers });
  // Bytes the storage already holds in memory skip the web-stream adapter: a small GET's largest cost.
  if (read) return new Response(read.bytes ?? read.stream, { status, headers });

  const ranged = await req.storage.getByKey(
    req.auth.credential.tenantId,
    req.bucket,
    req.key,
    full ? undefined : { range: range.range },
  );
  if (ranged.kind === 'err') return s3FailureOf(ranged.error, req.logger, req.requestId);
  if (ranged.value.meta.etag !== meta.etag) {
    // Replaced between the two calls: the range was computed for the old size, so answer for the new one.
    await discard(ranged.value);
    return readObject(req);
  }
  return new Response(ranged.value.bytes ?? ranged.value.stream, { status, headers });
}
