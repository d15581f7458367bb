import { evaluateConditions, evaluateRange } from '../conditions.js';
import { s3Error } from '../errors.js';
import { objectHeaders } from '../object-headers.js';
import type { S3Request } from '../request.js';
import { s3FailureOf } from '../storage-errors.js';
import type { S3Outcome } from './outcome.js';

/** GetObject and HeadObject: conditionals, one byte range, metadata and (full objects) checksums. */
export async function readObject(req: S3Request): Promise<S3Outcome> {
  const head = await req.storage.headByKey(req.auth.credential.tenantId, req.bucket, req.key);
  if (head.kind === 'err') return s3FailureOf(head.error, req.logger, req.requestId);
  const meta = head.value;
  if (meta === null) return s3Error('NoSuchKey');

  const condition = evaluateConditions(req.header, meta);
  if (condition === 'precondition-failed') return s3Error('PreconditionFailed');
  if (condition === 'not-modified') {
    const headers = new Headers({ etag: objectHeaders(meta, new Map(), false).get('etag')! });
    headers.set('last-modified', new Date(meta.createdAt).toUTCString());
    return new Response(null, { status: 304, headers });
  }

  const range = evaluateRange(req.header('range'), meta.size);
  if (range.kind === 'unsatisfiable') {
    const failure = s3Error('InvalidRange');
    return { ...failure, headers: { 'content-range': `bytes */${meta.size}` } };
  }
  const full = range.kind === 'full';
  const headers = objectHeaders(meta, req.query, full);
  const length = full ? meta.size : range.range.end - range.range.start + 1;
  headers.set('content-length', String(length));
  if (!full) headers.set('content-range', `bytes ${range.range.start}-${range.range.end}/${meta.size}`);
  const status = full ? 200 : 206;
  if (req.method === 'HEAD') return new Response(null, { status, headers });

  const read = await req.storage.getByKey(
    req.auth.credential.tenantId,
    req.bucket,
    req.key,
    full ? undefined : { range: range.range },
  );
  if (read.kind === 'err') return s3FailureOf(read.error, req.logger, req.requestId);
  if (read.value.meta.etag !== meta.etag) {
    // The object was replaced between the two calls: answer for the version whose bytes we stream.
    await read.value.stream.cancel().catch(() => undefined);
    return readObject(req);
  }
  return new Response(read.value.stream, { status, headers });
}
