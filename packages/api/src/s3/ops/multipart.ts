import { createHash } from 'node:crypto';
import type { BlobChecksums, MultipartInitInput } from '@kindgi/bindings';
import { planBody } from '../body-plan.js';
import { verifiedBody } from '../body-stream.js';
import {
  CHECKSUM_ALGORITHMS,
  type ChecksumAlgorithm,
  checksumAlgorithmFromName,
  compositeChecksum,
} from '../checksums.js';
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
import type { S3Outcome } from './outcome.js';

const MAX_XML_BYTES = 4 * 1024 * 1024;

/** Reads a small request body (an XML document) through the same verification as object bodies. */
export async function readSmallBody(req: S3Request): Promise<string | S3Failure> {
  const plan = planBody(req.header, req.auth);
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

/** InitiateMultipartUpload (`POST ?uploads`); `x-amz-checksum-algorithm` is kept and echoed. */
export async function initiateUpload(req: S3Request, rawHeaders: Headers): Promise<S3Outcome> {
  const attributes = readObjectAttributes(rawHeaders);
  if (attributes.kind === 'err') return s3Error(attributes.error.code, attributes.error.message);
  const input: MultipartInitInput = attributes.value;
  const algorithmName = req.header('x-amz-checksum-algorithm');
  const algorithm = algorithmName === undefined ? undefined : checksumAlgorithmFromName(algorithmName.trim());
  if (algorithm !== undefined) input.checksumAlgorithm = algorithm;
  const started = await req.storage.initiateMultipartUpload(req.auth.credential.tenantId, req.bucket, req.key, input);
  if (started.kind === 'err') return s3FailureOf(started.error, req.logger, req.requestId);
  const response = xmlResponse(
    xmlDocument('InitiateMultipartUploadResult', [
      ['Bucket', req.bucket],
      ['Key', req.key],
      ['UploadId', started.value.uploadId],
    ]),
  );
  if (algorithm !== undefined) {
    response.headers.set('x-amz-checksum-algorithm', algorithm.toUpperCase());
    response.headers.set('x-amz-checksum-type', 'COMPOSITE');
  }
  return response;
}

/**
 * The composite checksum to keep with a completing upload, from its stored part checksums: the upload's
 * algorithm, else one every listed part has. A part checksum the client lists that differs from the stored one
 * is `InvalidPart`. A retried Complete (the upload already completed) gets the kept checksums from storage.
 */
async function completionChecksums(
  req: S3Request,
  uploadId: string,
  parts: readonly CompletionPart[],
): Promise<BlobChecksums | S3Failure | undefined> {
  const listed = await req.storage.listParts(req.auth.credential.tenantId, req.bucket, req.key, uploadId);
  if (listed.kind === 'err') return undefined;
  const stored = new Map(listed.value.parts.map((part) => [part.partNumber, part.checksums ?? {}]));
  for (const part of parts) {
    for (const [algorithm, value] of Object.entries(part.checksums ?? {}) as Array<[ChecksumAlgorithm, string]>) {
      const kept = stored.get(part.partNumber)?.[algorithm];
      if (kept !== undefined && kept !== value) {
        return s3Error('InvalidPart', `The ${algorithm.toUpperCase()} of part ${part.partNumber} does not match.`);
      }
    }
  }
  const algorithm =
    listed.value.checksumAlgorithm ??
    CHECKSUM_ALGORITHMS.find((name) => parts.every((part) => stored.get(part.partNumber)?.[name] !== undefined));
  if (algorithm === undefined) return undefined;
  const composite = compositeChecksum(
    algorithm,
    parts.map((part) => stored.get(part.partNumber)?.[algorithm]),
  );
  return composite === undefined ? undefined : { [algorithm]: composite };
}

/** CompleteMultipartUpload (`POST ?uploadId=`): ETag `md5(concat(part md5s))-N`. */
export async function completeUpload(req: S3Request, uploadId: string): Promise<S3Outcome> {
  const text = await readSmallBody(req);
  if (typeof text !== 'string') return text;
  const parts = parseCompleteMultipartUpload(text);
  if (parts.kind === 'err') return parts.error;
  const checksums = await completionChecksums(req, uploadId, parts.value);
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
  return xmlResponse(
    xmlDocument('CompleteMultipartUploadResult', [
      ['Location', req.resource],
      ['Bucket', req.bucket],
      ['Key', req.key],
      ['ETag', quoteEtag(done.value.etag)],
      ...PART_CHECKSUM_ELEMENTS.map(([element, algorithm]): XmlNode => [element, kept[algorithm]]),
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
      ['ChecksumAlgorithm', listed.value.checksumAlgorithm?.toUpperCase()],
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
