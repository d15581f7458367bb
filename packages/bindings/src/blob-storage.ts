import type { Result } from '@kindgi/protocol';

/** Bytes to store: a web stream, a Node stream or any async iterable of chunks, or one buffer. */
export type BlobBody = ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> | Uint8Array;

/** The standard HTTP content headers an object keeps (S3 returns them on GET/HEAD). */
export interface BlobContentHeaders {
  contentDisposition?: string;
  contentEncoding?: string;
  contentLanguage?: string;
  cacheControl?: string;
  expires?: string;
}

/** Checksums S3 clients may send (`x-amz-checksum-*`), base64 of the digest, kept and returned. */
export interface BlobChecksums {
  crc32?: string;
  crc32c?: string;
  crc64nvme?: string;
  sha1?: string;
  sha256?: string;
}

/** What to store. The object becomes visible only after every byte arrived and every check passed. */
export interface BlobPutInput extends BlobContentHeaders {
  name: string;
  contentType: string;
  bytes: BlobBody;
  /** The declared length: a different count of bytes fails with `blob-size-mismatch`. */
  size?: number;
  tags?: Record<string, string>;
  /** User metadata (`x-amz-meta-*` without the prefix, names lowercased). */
  metadata?: Record<string, string>;
  /**
   * Checksums to keep with the object. A value sent as an aws-chunked trailer is filled in only once the
   * body has ended, so an implementation reads this after consuming `bytes`, never before.
   */
  checksums?: BlobChecksums;
  ownerRunId?: string;
  projectId?: string;
  createdBy?: string;
  /** sha256 hex the bytes must have (`blob-hash-mismatch`, algorithm `sha256`). */
  expectedHash?: string;
  /** MD5 hex the bytes must have, from `Content-MD5` (`blob-hash-mismatch`, algorithm `md5`). */
  expectedMd5?: string;
  /** `'*'`: store only when no object has this address yet (`precondition-failed` otherwise), atomically. */
  ifNoneMatch?: '*';
  /** Store only when the current object's ETag is this one (`precondition-failed` otherwise). */
  ifMatch?: string;
}

/** A stored object. Every blob has both a `blobId` and a `(bucket, key)` address. */
export interface BlobMeta extends BlobContentHeaders {
  blobId: string;
  tenantId: string;
  bucket: string;
  key: string;
  name: string;
  contentType: string;
  size: number;
  /** sha256 of the bytes, lowercase hex. */
  hash: string;
  /** S3 ETag, unquoted: the MD5 hex, or `md5(concat(part md5s))-N` for a multipart upload. */
  etag: string;
  tags: Record<string, string>;
  metadata: Record<string, string>;
  checksums?: BlobChecksums;
  ownerRunId?: string;
  projectId?: string;
  createdBy?: string;
  /** ISO 8601 with milliseconds. */
  createdAt: string;
}

/** Inclusive byte range, already clamped to the object's size by the caller. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface BlobGetOptions {
  range?: ByteRange;
}

export interface BlobReadResult {
  meta: BlobMeta;
  /** The whole object, or only `range` when one was asked for. */
  stream: ReadableStream<Uint8Array>;
  /**
   * The same bytes as `stream`, when the storage already holds them in memory (small objects): a caller may
   * answer with these instead of reading `stream`, which then needs no cancelling.
   */
  bytes?: Uint8Array;
}

/** Filters for `list` (bespoke listing); all given filters must hold. */
export interface BlobFilter {
  ownerRunId?: string;
  contentType?: string;
  projectId?: string;
  bucket?: string;
  tags?: Record<string, string>;
}

export interface BlobListPage {
  data: BlobMeta[];
  nextCursor?: string;
}

export interface ListByPrefixInput {
  prefix?: string;
  /** Groups keys that contain it after the prefix into `commonPrefixes`. */
  delimiter?: string;
  /** Only keys after this one (exclusive). */
  startAfter?: string;
  /** An opaque token from a previous page. */
  continuationToken?: string;
  /** 0..1000; default 1000. */
  maxKeys?: number;
}

export interface ListByPrefixResult {
  contents: BlobMeta[];
  commonPrefixes: string[];
  isTruncated: boolean;
  nextContinuationToken?: string;
}

/** A flexible-checksum algorithm, as named in `BlobChecksums`. */
export type BlobChecksumAlgorithm = keyof BlobChecksums;

/**
 * How a multipart object's checksum is made from its parts' (`x-amz-checksum-type`): `COMPOSITE` is the
 * algorithm over the concatenated part digests (`…-N`), `FULL_OBJECT` the CRC of the whole object's bytes.
 */
export type BlobChecksumType = 'COMPOSITE' | 'FULL_OBJECT';

export interface MultipartInitInput extends BlobContentHeaders {
  contentType: string;
  tags?: Record<string, string>;
  metadata?: Record<string, string>;
  ownerRunId?: string;
  createdBy?: string;
  /** The checksum algorithm the upload was created with (`x-amz-checksum-algorithm`), kept and returned. */
  checksumAlgorithm?: BlobChecksumAlgorithm;
  /** The checksum type the upload was created with (`x-amz-checksum-type`), kept and returned. */
  checksumType?: BlobChecksumType;
}

export interface UploadPartInput {
  bytes: BlobBody;
  size?: number;
  expectedMd5?: string;
  expectedHash?: string;
  /** The part's verified checksums, kept with it; like `BlobPutInput.checksums`, read only after `bytes` ended. */
  checksums?: BlobChecksums;
}

export interface PartInfo {
  partNumber: number;
  /** MD5 hex, unquoted. */
  etag: string;
  size: number;
  lastModified: string;
  /** The checksums the part was stored with, when it had any. */
  checksums?: BlobChecksums;
}

export interface CompletedPart {
  partNumber: number;
  etag: string;
}

/** What completing an upload stores besides its parts. */
export interface CompleteMultipartOptions {
  /** Checksums to keep with the object (the caller computes composite `…-N` values from the parts'). */
  checksums?: BlobChecksums;
}

/** The upload list in `listParts` answers, with the upload's own attributes. */
export interface ListPartsResult {
  parts: PartInfo[];
  contentType: string;
  checksumAlgorithm?: BlobChecksumAlgorithm;
  checksumType?: BlobChecksumType;
}

export interface ListMultipartUploadsInput {
  /** Only uploads whose key starts with it. */
  prefix?: string;
  /** Only uploads after this key (or, with `uploadIdMarker`, after that upload of this key). */
  keyMarker?: string;
  uploadIdMarker?: string;
  /** 0..1000; default 1000. */
  maxUploads?: number;
}

/** An upload in progress, as `listMultipartUploads` lists it. */
export interface MultipartUploadSummary {
  key: string;
  uploadId: string;
  /** ISO 8601 with milliseconds. */
  initiated: string;
  checksumAlgorithm?: BlobChecksumAlgorithm;
  checksumType?: BlobChecksumType;
}

export interface ListMultipartUploadsResult {
  /** In key order (code units, as `listByPrefix`), then by uploadId. */
  uploads: MultipartUploadSummary[];
  isTruncated: boolean;
}

/** Why a storage call failed. Codes are stable; `message` is for people. */
export type BlobError =
  | { code: 'blob-not-found'; message: string; blobId?: string; bucket?: string; key?: string }
  | { code: 'upload-not-found'; message: string; uploadId: string }
  | { code: 'blob-hash-mismatch'; message: string; algorithm: 'sha256' | 'md5'; expected: string; actual: string }
  | { code: 'blob-size-mismatch'; message: string; declared: number; actual: number }
  | { code: 'precondition-failed'; message: string }
  | { code: 'invalid-part'; message: string; partNumber: number }
  | { code: 'invalid-part-order'; message: string }
  | { code: 'entity-too-small'; message: string; partNumber: number }
  | { code: 'invalid-key'; message: string }
  /** Reading the body failed (the client went away, or a verifying stream refused it): nothing stored. */
  | { code: 'blob-body-failed'; message: string; cause: unknown }
  | { code: 'blob-storage-error'; message: string; cause?: unknown }
  /** Refused before any byte was kept (upload buffers spent, too many open uploads): retry after a pause. */
  | { code: 'storage-busy'; message: string; retryAfterSeconds: number };

export type BlobErrorCode = BlobError['code'];

type Async<T> = Promise<Result<T, BlobError>>;

/**
 * Where artifacts and S3 objects live. Every method takes the tenant first and never throws. A bespoke
 * `put` gives the blob the address bucket `artifacts`, key `<blobId>`; `putByKey` replaces whatever the
 * address held (last write wins) and the blob gets a fresh `blobId`.
 */
export interface BlobStorageBinding {
  put(tenantId: string, input: BlobPutInput): Async<BlobMeta>;
  get(tenantId: string, blobId: string, options?: BlobGetOptions): Async<BlobReadResult>;
  head(tenantId: string, blobId: string): Async<BlobMeta | null>;
  list(tenantId: string, filter: BlobFilter, cursor?: string, limit?: number): Async<BlobListPage>;
  delete(tenantId: string, blobId: string): Async<{ deleted: boolean }>;

  putByKey(tenantId: string, bucket: string, key: string, input: BlobPutInput): Async<BlobMeta>;
  getByKey(tenantId: string, bucket: string, key: string, options?: BlobGetOptions): Async<BlobReadResult>;
  headByKey(tenantId: string, bucket: string, key: string): Async<BlobMeta | null>;
  /** Idempotent: deleting a missing key is `{deleted: false}`, not an error. */
  deleteByKey(tenantId: string, bucket: string, key: string): Async<{ deleted: boolean }>;
  /** Keys in code-unit order. */
  listByPrefix(tenantId: string, bucket: string, input: ListByPrefixInput): Async<ListByPrefixResult>;

  initiateMultipartUpload(
    tenantId: string,
    bucket: string,
    key: string,
    input: MultipartInitInput,
  ): Async<{ uploadId: string }>;
  uploadPart(
    tenantId: string,
    bucket: string,
    key: string,
    uploadId: string,
    partNumber: number,
    input: UploadPartInput,
  ): Async<{ etag: string; size: number }>;
  /**
   * Parts ascending, ETags matching, all but the last at least 5 MiB; ETag `md5(concat(md5s))-N`. Repeating
   * the call for an upload that completed with the same part list (numbers and ETags) answers the same
   * `BlobMeta` again, until `expireMultipartUploads` forgets it; a different list is `upload-not-found`.
   */
  completeMultipartUpload(
    tenantId: string,
    bucket: string,
    key: string,
    uploadId: string,
    parts: CompletedPart[],
    options?: CompleteMultipartOptions,
  ): Async<BlobMeta>;
  abortMultipartUpload(tenantId: string, bucket: string, key: string, uploadId: string): Async<{ aborted: true }>;
  listParts(tenantId: string, bucket: string, key: string, uploadId: string): Async<ListPartsResult>;
  /** Uploads of a bucket not yet completed or aborted. */
  listMultipartUploads(
    tenantId: string,
    bucket: string,
    input: ListMultipartUploadsInput,
  ): Async<ListMultipartUploadsResult>;
  /**
   * Maintenance, across every tenant: aborts uploads initiated before `before` (their parts are deleted) and
   * forgets the answers kept for completed uploads that completed before it. `expired` counts both.
   */
  expireMultipartUploads(before: Date): Async<{ expired: number }>;
}

/** How long an unfinished multipart upload (and a completed one's answer, for retries) is kept by default. */
export const DEFAULT_MULTIPART_EXPIRY_MS = 7 * 24 * 60 * 60 * 1000;

/** The smallest part S3 accepts, except the last. */
export const MIN_MULTIPART_PART_BYTES = 5 * 1024 * 1024;
/** Part numbers run 1..10000. */
export const MAX_MULTIPART_PARTS = 10_000;
/** The bucket a bespoke upload's blob is addressed under. */
export const ARTIFACTS_BUCKET = 'artifacts';

/** The multipart half of {@link BlobStorageBinding}: what each storage implements in its multipart module. */
export type BlobMultipartMethods = Pick<
  BlobStorageBinding,
  | 'initiateMultipartUpload'
  | 'uploadPart'
  | 'completeMultipartUpload'
  | 'abortMultipartUpload'
  | 'listParts'
  | 'listMultipartUploads'
  | 'expireMultipartUploads'
>;
