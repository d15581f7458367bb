import type { BlobChecksums, UploadPartInput } from '@kindgi/bindings';
import { s3Error } from '../errors.js';
import { type S3Request, xmlResponse } from '../request.js';
import { s3FailureOf } from '../storage-errors.js';
import { PART_CHECKSUM_ELEMENTS, quoteEtag, type XmlNode, xmlDocument } from '../xml.js';
import { copyBody, copyFailureOf, openCopySource, releaseRead } from './copy-source.js';
import { partNumberOf } from './object-write.js';
import type { S3Outcome } from './outcome.js';

/**
 * UploadPartCopy (`PUT ?partNumber&uploadId` with `x-amz-copy-source`, optionally `x-amz-copy-source-range`):
 * the source's bytes (or the range) stream into the part slot. A whole-source part is bound to the source's
 * sha256; a range is read from the very blob its bounds were checked against. When the upload was created with
 * a checksum algorithm the part's checksum is computed on the way, as for an uploaded part.
 */
export async function uploadPartCopy(req: S3Request, uploadId: string): Promise<S3Outcome> {
  const partNumber = partNumberOf(req);
  if (partNumber === undefined) {
    return s3Error('InvalidArgument', 'Part number must be an integer between 1 and 10000, inclusive.');
  }
  // The upload first: a missing one is NoSuchUpload whatever the source, and its algorithm decides the checksum.
  const upload = await req.storage.listParts(req.tenantId, req.bucket, req.key, uploadId);
  if (upload.kind === 'err') return s3FailureOf(upload.error, req.logger, req.requestId);
  const opened = await openCopySource(req, req.header('x-amz-copy-source-range'));
  if ('code' in opened) return opened;
  const { meta, read, range } = opened;
  const algorithm = upload.value.checksumAlgorithm;
  const checksums: BlobChecksums = {};
  const input: UploadPartInput = {
    bytes: copyBody(read, algorithm !== undefined ? [algorithm] : [], checksums),
    checksums,
    size: range === undefined ? meta.size : range.end - range.start + 1,
  };
  if (range === undefined) input.expectedHash = meta.hash;
  const stored = await req.storage.uploadPart(req.tenantId, req.bucket, req.key, uploadId, partNumber, input);
  await releaseRead(read);
  if (stored.kind === 'err') return copyFailureOf(stored.error, req);
  return xmlResponse(
    xmlDocument('CopyPartResult', [
      ['ETag', quoteEtag(stored.value.etag)],
      ['LastModified', new Date().toISOString()],
      ...PART_CHECKSUM_ELEMENTS.map(([element, name]): XmlNode => [element, checksums[name]]),
    ]),
  );
}
