import type { Result } from '@kindgi/protocol';
import type { BodyDigests, BodyExpectations } from '../blob-rules/body.js';
import type { ScanBound } from '../blob-rules/list-by-prefix.js';
import type {
  BlobBody,
  BlobError,
  BlobFilter,
  BlobMeta,
  BlobPutInput,
  CompletedPart,
  ListMultipartUploadsInput,
  MultipartInitInput,
  PartInfo,
} from '../blob-storage.js';

/** What a body is written as: a new object (sent whole, or assembled from an upload's parts), or a part. */
export type BytesTarget =
  | { kind: 'object' | 'assembly'; blobId: string }
  | { kind: 'part'; uploadId: string; partNumber: number };

/**
 * A body the bytes port took: where its bytes are (`ref`, the name the rows keep) and its digests. A small
 * body may stay in memory (`inline`) for rows that keep bytes themselves; such rows store it with the object.
 */
export interface WrittenBytes extends BodyDigests {
  ref: string;
  inline?: Uint8Array;
}

/** The bytes half of a blob storage: objects and parts as named byte sequences, nothing else. */
export interface BlobBytesPort {
  /**
   * Streams a body (through `consumeBody`, with `expect`) to a fresh name, durable when this resolves. A body
   * that fails a check or breaks off leaves nothing behind.
   */
  write(target: BytesTarget, body: BlobBody, expect: BodyExpectations): Promise<Result<WrittenBytes, BlobError>>;
  /** Bytes `start..end` (inclusive; `end < start` for none) of `ref`, or `null` when it is gone. */
  read(ref: string, start: number, end: number): Promise<ReadableStream<Uint8Array> | null>;
  /** Deletes bytes no row references any more. Never throws: what cannot go now is cleaned up later. */
  discard(refs: readonly string[]): Promise<void>;
  /** A commit that would have referenced `ref` threw `cause`: cleans up only what is certainly unreferenced. */
  abandon(ref: string, cause: unknown): Promise<void>;
}

/** An object by blobId or by address. */
export type ObjectWhere = { blobId: string } | { bucket: string; key: string };

/** An object as the rows hold it; `bytes` only when the rows keep its bytes themselves (`WrittenBytes.inline`). */
export interface StoredObject {
  meta: BlobMeta;
  ref: string;
  bytes?: Uint8Array;
}

/** The conditions a write puts on the object it replaces (see `writeConditionsHold`). */
export type WriteConditions = Pick<BlobPutInput, 'ifMatch' | 'ifNoneMatch'>;

/** What a commit decided: refused by the conditions, or stored, naming the bytes of the object it replaced. */
export type CommitOutcome = { refused: true } | { refused: false; replaced?: string };

/** A multipart upload as stored: its address, its initiation input and when it began (ISO 8601). */
export interface StoredUpload {
  bucket: string;
  key: string;
  init: MultipartInitInput;
  createdAt: string;
}

/** What a completed upload answered, kept for a retried completion. */
export interface UploadAnswer {
  parts: CompletedPart[];
  meta: BlobMeta;
}

/** A stored part and where its bytes are. */
export interface StoredPart extends PartInfo {
  ref: string;
}

/**
 * How a completion ended: the upload was aborted or expired meanwhile (`gone`), another completion won
 * (`completed`, its answer), or the object was committed (`discarded`: the parts' and replaced object's bytes).
 */
export type CompleteOutcome = { gone: true } | { completed: UploadAnswer } | { discarded: string[] };

/** The objects' half of the rows port. */
export interface ObjectRowsPort {
  find(tenantId: string, where: ObjectWhere): Promise<StoredObject | undefined>;
  /** Makes `meta` the object at its address if `conditions` hold against the current one, atomically. */
  commit(meta: BlobMeta, written: WrittenBytes, conditions: WriteConditions): Promise<CommitOutcome>;
  /** Deletes an object's row; returns the ref of its bytes, or `undefined` when there was none. */
  remove(tenantId: string, where: ObjectWhere): Promise<string | undefined>;
  /** Up to `limit` objects matching `filter`, newest first, with sequence numbers below `below`. */
  list(tenantId: string, filter: BlobFilter, below: number, limit: number): Promise<{ seq: number; meta: BlobMeta }[]>;
  /** Up to `limit` objects of a bucket from `from` onwards (all when undefined), in code-unit key order. */
  scan(
    tenantId: string,
    bucket: string,
    from: ScanBound | undefined,
    limit: number,
  ): Promise<{ key: string; meta: BlobMeta }[]>;
}

/** The multipart uploads' half of the rows port. */
export interface UploadRowsPort {
  /**
   * Records a new upload unless the tenant already has `maxOpen` uploads in progress (completed ones do not
   * count), atomically: uploads begun at once never pass it together. False when refused.
   */
  createUpload(tenantId: string, uploadId: string, upload: StoredUpload, maxOpen: number): Promise<boolean>;
  /** An upload of this tenant, with its kept answer once completed; `undefined` when aborted or expired. */
  findUpload(
    tenantId: string,
    uploadId: string,
  ): Promise<{ upload: StoredUpload; completed?: UploadAnswer } | undefined>;
  /** An upload's parts, ascending by number. */
  parts(uploadId: string): Promise<StoredPart[]>;
  /** Records a part (replacing one with its number) while the upload is open; `false` once it is not. */
  recordPart(tenantId: string, uploadId: string, part: StoredPart): Promise<{ discarded: string[] } | false>;
  /** Commits the assembled object, drops the parts and keeps the answer, while the upload is still open. */
  completeUpload(
    tenantId: string,
    uploadId: string,
    answer: UploadAnswer,
    written: WrittenBytes,
  ): Promise<CompleteOutcome>;
  abortUpload(tenantId: string, uploadId: string): Promise<{ discarded: string[] } | false>;
  /**
   * Open uploads of a bucket matching `input`'s prefix and markers, in key then uploadId order: at least the
   * first `maxUploads + 1` of them (more is fine, the core pages them).
   */
  openUploads(
    tenantId: string,
    bucket: string,
    input: ListMultipartUploadsInput,
  ): Promise<{ uploadId: string; upload: StoredUpload }[]>;
  /** Drops, across tenants, open uploads begun before `before` and completed answers kept since before it. */
  expireUploads(before: Date): Promise<{ expired: number; discarded: string[] }>;
}

/**
 * The metadata half of a blob storage. Each method that changes more than one row does it in one transaction,
 * so a crash leaves the state before or after it. Bytes named in `discarded` or `replaced` are no longer
 * referenced once the method returns.
 */
export interface BlobRowsPort extends ObjectRowsPort, UploadRowsPort {}

/** The two ports a blob storage is made of. */
export interface BlobStoragePorts {
  rows: BlobRowsPort;
  bytes: BlobBytesPort;
}
