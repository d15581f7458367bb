import type { BlobChecksums, BlobContentHeaders, BlobMeta, BlobPutInput } from '@kindgi/bindings';
import { err, ok, type Result } from '@kindgi/protocol';
import {
  CHECKSUM_ALGORITHMS,
  type ChecksumAlgorithm,
  checksumAlgorithmFromName,
  checksumTypeOf,
  storedChecksumType,
} from '../checksums.js';
import { type S3Failure, s3Error } from '../errors.js';
import { type ObjectAttributes, readObjectAttributes, readTagging } from '../object-headers.js';
import { type S3Request, xmlResponse } from '../request.js';
import { PART_CHECKSUM_ELEMENTS, quoteEtag, type XmlNode, xmlDocument } from '../xml.js';
import { uploadPartCopy } from './copy-part.js';
import { copyBody, copyFailureOf, openCopySource, releaseRead } from './copy-source.js';
import type { S3Outcome } from './outcome.js';

type Directive = 'COPY' | 'REPLACE';

/** What a CopyObject request asks for, read from its headers before the source is opened. */
interface CopyRequest {
  metadata: Directive;
  tagging: Directive;
  /** The request's own attributes, used for what a REPLACE directive replaces. */
  attributes: ObjectAttributes;
  /** `x-amz-checksum-algorithm`: the checksum the copy gets, computed while it streams. */
  algorithm?: ChecksumAlgorithm;
  conditions: Pick<BlobPutInput, 'ifMatch' | 'ifNoneMatch'>;
}

// Typed as a record so a content header added to the binding cannot be silently left out of a copy.
const CONTENT_FIELDS = {
  contentDisposition: true,
  contentEncoding: true,
  contentLanguage: true,
  cacheControl: true,
  expires: true,
} as const satisfies Record<keyof BlobContentHeaders, true>;

// Headers whose presence makes copying an object onto itself a change (AWS's list, minus what we cannot vary).
const SELF_COPY_CHANGES = [
  'x-amz-storage-class',
  'x-amz-website-redirect-location',
  'x-amz-server-side-encryption',
  'x-amz-server-side-encryption-aws-kms-key-id',
  'x-amz-server-side-encryption-customer-algorithm',
];

const ILLEGAL_SELF_COPY =
  "This copy request is illegal because it is trying to copy an object to itself without changing the object's " +
  'metadata, storage class, website redirect location or encryption attributes.';

function directiveOf(req: S3Request, name: string, what: string): Result<Directive, S3Failure> {
  const value = req.header(name)?.trim();
  if (value === undefined || value === 'COPY' || value === 'REPLACE') return ok(value ?? 'COPY');
  return err(s3Error('InvalidArgument', `Unknown ${what} directive.`));
}

function readCopyRequest(req: S3Request, rawHeaders: Headers): Result<CopyRequest, S3Failure> {
  const metadata = directiveOf(req, 'x-amz-metadata-directive', 'metadata');
  if (metadata.kind === 'err') return metadata;
  const tagging = directiveOf(req, 'x-amz-tagging-directive', 'tagging');
  if (tagging.kind === 'err') return tagging;
  const attributes = readObjectAttributes(rawHeaders);
  if (attributes.kind === 'err') return err(s3Error(attributes.error.code, attributes.error.message));
  const request: CopyRequest = {
    metadata: metadata.value,
    tagging: tagging.value,
    attributes: attributes.value,
    conditions: {},
  };
  const algorithmName = req.header('x-amz-checksum-algorithm');
  if (algorithmName !== undefined) {
    const algorithm = checksumAlgorithmFromName(algorithmName.trim());
    if (algorithm === undefined) {
      const names = CHECKSUM_ALGORITHMS.map((name) => name.toUpperCase()).join(', ');
      return err(s3Error('InvalidRequest', `The checksum algorithm ${algorithmName} is not one of ${names}.`));
    }
    request.algorithm = algorithm;
  }
  const ifNoneMatch = req.header('if-none-match');
  if (ifNoneMatch !== undefined) {
    if (ifNoneMatch.trim() !== '*') return err(s3Error('NotImplemented', 'If-None-Match on PUT supports only "*".'));
    request.conditions.ifNoneMatch = '*';
  }
  const ifMatch = req.header('if-match');
  if (ifMatch !== undefined) request.conditions.ifMatch = ifMatch.trim().replace(/^"|"$/g, '');
  return ok(request);
}

/** The attributes the copy gets: the source's under COPY, the request's under REPLACE; tags likewise. */
function copyAttributes(request: CopyRequest, meta: BlobMeta, req: S3Request): Result<ObjectAttributes, S3Failure> {
  const attributes: ObjectAttributes =
    request.metadata === 'REPLACE'
      ? { ...request.attributes }
      : {
          contentType: meta.contentType,
          // No prototype, as for a PUT: a metadata name `__proto__` is copied like any other.
          metadata: Object.assign(Object.create(null) as Record<string, string>, meta.metadata),
          tags: {},
        };
  if (request.metadata === 'COPY') {
    for (const field of Object.keys(CONTENT_FIELDS) as Array<keyof BlobContentHeaders>) {
      const value = meta[field];
      if (value !== undefined) attributes[field] = value;
    }
  }
  if (request.tagging === 'COPY') {
    attributes.tags = Object.assign(Object.create(null) as Record<string, string>, meta.tags);
  } else {
    const tags = readTagging(req.header('x-amz-tagging') ?? '');
    if (tags.kind === 'err') return err(s3Error(tags.error.code, tags.error.message));
    attributes.tags = tags.value;
  }
  return ok(attributes);
}

/**
 * The copy's checksums: the one asked for, computed while streaming; else the source's, carried over when they
 * are of the whole object, recomputed when they are a multipart composite (the copy is one part).
 */
function checksumPlan(meta: BlobMeta, requested: ChecksumAlgorithm | undefined) {
  const carried: BlobChecksums = {};
  const compute: ChecksumAlgorithm[] = requested !== undefined ? [requested] : [];
  if (requested !== undefined) return { carried, compute };
  for (const algorithm of CHECKSUM_ALGORITHMS) {
    const value = meta.checksums?.[algorithm];
    if (value === undefined) continue;
    if (checksumTypeOf(value) === 'COMPOSITE') compute.push(algorithm);
    else carried[algorithm] = value;
  }
  return { carried, compute };
}

function changesItself(req: S3Request, request: CopyRequest, meta: BlobMeta): boolean {
  if (request.metadata === 'REPLACE' || request.tagging === 'REPLACE') return true;
  if (SELF_COPY_CHANGES.some((name) => req.header(name) !== undefined)) return true;
  if (request.algorithm === undefined) return false;
  const current = meta.checksums?.[request.algorithm];
  return current === undefined || checksumTypeOf(current) === 'COMPOSITE';
}

function copyResult(stored: BlobMeta): Response {
  const checksums = stored.checksums ?? {};
  return xmlResponse(
    xmlDocument('CopyObjectResult', [
      ['ETag', quoteEtag(stored.etag)],
      ['LastModified', stored.createdAt],
      ['ChecksumType', storedChecksumType(checksums)],
      ...PART_CHECKSUM_ELEMENTS.map(([element, algorithm]): XmlNode => [element, checksums[algorithm]]),
    ]),
  );
}

/**
 * CopyObject (`PUT` with `x-amz-copy-source`): the source's bytes stream into a new object at this key, bound to
 * the source's sha256 so a torn read cannot store a wrong copy; the copy shares nothing with its source.
 */
export async function copyObject(req: S3Request, rawHeaders: Headers): Promise<S3Outcome> {
  const request = readCopyRequest(req, rawHeaders);
  if (request.kind === 'err') return request.error;
  const opened = await openCopySource(req);
  if ('code' in opened) return opened;
  const { meta, read, source } = opened;
  const attributes = copyAttributes(request.value, meta, req);
  const self = source.bucket === req.bucket && source.key === req.key;
  if (attributes.kind === 'err' || (self && !changesItself(req, request.value, meta))) {
    await releaseRead(read);
    return attributes.kind === 'err' ? attributes.error : s3Error('InvalidRequest', ILLEGAL_SELF_COPY);
  }
  const plan = checksumPlan(meta, request.value.algorithm);
  const checksums: BlobChecksums = { ...plan.carried };
  const input: BlobPutInput = {
    name: req.key,
    ...attributes.value,
    bytes: copyBody(read, plan.compute, checksums),
    checksums,
    size: meta.size,
    expectedHash: meta.hash,
    ...request.value.conditions,
  };
  const stored = await req.storage.putByKey(req.tenantId, req.bucket, req.key, input);
  await releaseRead(read);
  if (stored.kind === 'err') return copyFailureOf(stored.error, req);
  return copyResult(stored.value);
}

/** Routes a PUT carrying `x-amz-copy-source`: UploadPartCopy with `?uploadId`, CopyObject without. */
export async function copyObjectOrPart(req: S3Request, rawHeaders: Headers): Promise<S3Outcome> {
  const uploadId = req.query.get('uploadId');
  if (uploadId !== undefined) return uploadPartCopy(req, uploadId);
  if (req.query.has('partNumber')) return s3Error('InvalidArgument', 'partNumber needs uploadId.');
  return copyObject(req, rawHeaders);
}
