import { createHash } from 'node:crypto';
import type { BlobChecksums, MultipartInitInput } from '@kindgi/bindings';
import { type PlanOptions, planBody } from '../body-plan.js';
import { verifiedBody } from '../body-stream.js';
import { defaultChecksumType, storedChecksumType } from '../checksums.js';
import { findBodyFailure, type S3Failure, s3Error } from '../errors.js';
import { readObjectAttributes } from '../object-headers.js';
import { type S3Request, xmlResponse } from '../request.js';
import { s3FailureOf } from '../storage-errors.js';
import {
  type CompletionPart,
  PART_CHECKSUM_ELEMENTS,
  parseCompleteMultipartUpload,
  quoteEtag,
  type XmlNode,
  xmlDocument,
} from '../xml.js';
import {
  assertedMatches,
  checksumMismatch,
  completionChecksums,
  readAssertedChecksum,
  readUploadChecksum,
} from './multipart-checksums.js';
import type { S3Outcome } from './outcome.js';

const MAX_XML_BYTES = 4 * 1024 * 1024;

/** Reads a small request body (an XML document) through the same verification as object bodies. */
export async function readSmallBody(req: S3Request, options: PlanOptions = {}): Promise<string | S3Failure> {
  const plan = planBody(req.header, req.auth, options);
  if (plan.kind === 'err') return plan.error;
  if (plan.value.size !== undefined && plan.value.size > MAX_XML_BYTES) return s3Error('MalformedXML');
  const body = verifiedBody(req.body(), plan.value);
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of body.bytes) {
      total += chunk.length;
      if (total > MAX_XML_BYTES) return s3Error('MalformedXML', 'The XML document is too large.');
      chunks.push(Buffer.from(chunk));
    }
  } catch (thrown) {
    return findBodyFailure(thrown) ?? s3Error('IncompleteBody', 'The request body ended early or failed.');
  }
  const text = Buffer.concat(chunks);
  if (plan.value.expectedHash !== undefined) {
    if (createHash('sha256').update(text).digest('hex') !== plan.value.expectedHash) {
      return s3Error('XAmzContentSHA256Mismatch');
    }
  }
  if (plan.value.expectedMd5 !== undefined) {
    if (createHash('md5').update(text).digest('hex') !== plan.value.expectedMd5) return s3Error('BadDigest');
  }
  return text.toString('utf8');
}

/** InitiateMultipartUpload (`POST ?uploads`); `x-amz-checksum-algorithm` and `-type` are kept and echoed. */
export async function initiateUpload(req: S3Request, rawHeaders: Headers): Promise<S3Outcome> {
  const attributes = readObjectAttributes(rawHeaders);
  if (attributes.kind === 'err') return s3Error(attributes.error.code, attributes.error.message);
  const checksum = readUploadChecksum(req.header);
  if (checksum.kind === 'err') return checksum.error;
  const input: MultipartInitInput = attributes.value;
  if (checksum.value !== undefined) {
    input.checksumAlgorithm = checksum.value.algorithm;
    input.checksumType = checksum.value.type;
  }
  const started = await req.storage.initiateMultipartUpload(req.auth.credential.tenantId, req.bucket, req.key, input);
  if (started.kind === 'err') return s3FailureOf(started.error, req.logger, req.requestId);
  const response = xmlResponse(
    xmlDocument('InitiateMultipartUploadResult', [
      ['Bucket', req.bucket],
      ['Key', req.key],
      ['UploadId', started.value.uploadId],
    ]),
  );
  if (checksum.value !== undefined) {
    response.headers.set('x-amz-checksum-algorithm', checksum.value.algorithm.toUpperCase());
    response.headers.set('x-amz-checksum-type', checksum.value.type);
  }
  return response;
}

/**
 * The object checksum to keep with a completing upload (see `completionChecksums`). A retried Complete (the
 * upload already completed, so its parts are gone) computes nothing: storage answers with the kept checksums.
 */
async function checksumsToKeep(
  req: S3Request,
  uploadId: string,
  parts: readonly CompletionPart[],
): Promise<BlobChecksums | S3Failure | undefined> {
  const listed = await req.storage.listParts(req.auth.credential.tenantId, req.bucket, req.key, uploadId);
  if (listed.kind === 'err') return undefined;
  const checksums = await completionChecksums(req.header, listed.value, parts);
  return checksums.kind === 'err' ? checksums.error : checksums.value;
}

/**
 * CompleteMultipartUpload (`POST ?uploadId=`): ETag `md5(concat(part md5s))-N`; `x-amz-checksum-<alg>` is the
 * object's checksum (checked against the parts', never against this request's XML body).
 */
export async function completeUpload(req: S3Request, uploadId: string): Promise<S3Outcome> {
  const asserted = readAssertedChecksum(req.header);
  if (asserted.kind === 'err') return asserted.error;
  const text = await readSmallBody(req, { checksumHeaders: 'object' });
  if (typeof text !== 'string') return text;
  const parts = parseCompleteMultipartUpload(text);
  if (parts.kind === 'err') return parts.error;
  const checksums = await checksumsToKeep(req, uploadId, parts.value);
  if (checksums !== undefined && 'code' in checksums) return checksums;
  const done = await req.storage.completeMultipartUpload(
    req.auth.credential.tenantId,
    req.bucket,
    req.key,
    uploadId,
    parts.value.map(({ partNumber, etag }) => ({ partNumber, etag })),
    checksums !== undefined ? { checksums } : {},
  );
  if (done.kind === 'err') return s3FailureOf(done.error, req.logger, req.requestId);
  const kept = done.value.checksums ?? {};
  if (asserted.value !== undefined) {
    // Only a retried Complete gets here unchecked: hold it to what the first one kept.
    const value = kept[asserted.value.algorithm];
    if (value === undefined || !assertedMatches(asserted.value, value)) {
      return checksumMismatch(asserted.value.algorithm);
    }
  }
  return xmlResponse(
    xmlDocument('CompleteMultipartUploadResult', [
      ['Location', req.resource],
      ['Bucket', req.bucket],
      ['Key', req.key],
      ['ETag', quoteEtag(done.value.etag)],
      ...PART_CHECKSUM_ELEMENTS.map(([element, algorithm]): XmlNode => [element, kept[algorithm]]),
      ['ChecksumType', storedChecksumType(kept)],
    ]),
  );
}

/** AbortMultipartUpload (`DELETE ?uploadId=`). */
export async function abortUpload(req: S3Request, uploadId: string): Promise<S3Outcome> {
  const aborted = await req.storage.abortMultipartUpload(req.auth.credential.tenantId, req.bucket, req.key, uploadId);
  if (aborted.kind === 'err') return s3FailureOf(aborted.error, req.logger, req.requestId);
  return new Response(null, { status: 204 });
}

/** ListParts (`GET ?uploadId=`), honouring `part-number-marker` and `max-parts`. */
export async function listParts(req: S3Request, uploadId: string): Promise<S3Outcome> {
  const markerText = req.query.get('part-number-marker') ?? '0';
  const maxText = req.query.get('max-parts') ?? '1000';
  if (!/^\d{1,5}$/.test(markerText) || !/^\d{1,5}$/.test(maxText)) {
    return s3Error('InvalidArgument', 'part-number-marker and max-parts must be non-negative integers.');
  }
  const marker = Number(markerText);
  const maxParts = Math.min(1000, Number(maxText));
  const listed = await req.storage.listParts(req.auth.credential.tenantId, req.bucket, req.key, uploadId);
  if (listed.kind === 'err') return s3FailureOf(listed.error, req.logger, req.requestId);
  const algorithm = listed.value.checksumAlgorithm;
  const after = listed.value.parts.filter((part) => part.partNumber > marker);
  const page = after.slice(0, maxParts);
  const truncated = after.length > page.length;
  return xmlResponse(
    xmlDocument('ListPartsResult', [
      ['Bucket', req.bucket],
      ['Key', req.key],
      ['UploadId', uploadId],
      ['StorageClass', 'STANDARD'],
      ['PartNumberMarker', marker],
      ['NextPartNumberMarker', page.at(-1)?.partNumber ?? marker],
      ['MaxParts', maxParts],
      ['IsTruncated', truncated],
      ['ChecksumAlgorithm', algorithm?.toUpperCase()],
      [
        'ChecksumType',
        algorithm === undefined ? undefined : (listed.value.checksumType ?? defaultChecksumType(algorithm)),
      ],
      ...page.map(
        (part): XmlNode => [
          'Part',
          [
            ['PartNumber', part.partNumber],
            ['LastModified', part.lastModified],
            ['ETag', quoteEtag(part.etag)],
            ['Size', part.size],
            ...PART_CHECKSUM_ELEMENTS.map(([element, algorithm]): XmlNode => [element, part.checksums?.[algorithm]]),
          ],
        ],
      ),
    ]),
  );
}
