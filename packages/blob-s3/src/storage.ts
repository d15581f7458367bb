import {
  type BlobError,
  type BlobStorageBinding,
  ByteBudget,
  blobStorageError,
  createBlobStorage,
  DEFAULT_MULTIPART_EXPIRY_MS,
} from '@kindgi/bindings';
import { err, ok, type Result } from '@kindgi/protocol';
import { createPostgresBlobRows, type PostgresPool } from '@kindgi/store-postgres';
import { s3Bytes, sweepUnreferenced } from './bytes.js';
import { createBackendClient, type S3BackendConfig, type S3Timeouts } from './client.js';
import { ObjectStore } from './object-store.js';

const MiB = 1024 * 1024;
const HOUR_MS = 60 * 60 * 1000;
/** The default of `uploadBufferBytes`: 32 uploads' buffers of the default part size. */
const DEFAULT_UPLOAD_BUFFER_BYTES = 256 * MiB;
const DEFAULT_UPLOAD_BUFFER_WAIT_MS = 10_000;
/** The default of `inlineMaxBytes`: the size up to which blob-fs keeps objects in SQLite. */
const DEFAULT_INLINE_MAX_BYTES = 64 * 1024;
/** The most `inlineMaxBytes` may be: a row's bytes are read and written whole, in memory. */
const MAX_INLINE_MAX_BYTES = MiB;

/** Where an S3 blob storage keeps bytes and metadata, and how it cleans up after crashes. */
export interface S3BlobStorageOptions extends S3Timeouts {
  /** The PostgreSQL pool holding the metadata; migrated (`migrate` of @kindgi/store-postgres) by the caller. */
  pool: PostgresPool;
  backend: S3BackendConfig;
  /** Prepended to every object name in the bucket (default none), so one bucket can serve several uses. */
  prefix?: string;
  /** Bodies are sent in parts of this size (default 8 MiB, at least 5 MiB); one part is held in memory. */
  partSize?: number;
  /**
   * The bytes all uploads (PUTs, parts, REST artifacts, multipart assembly) may buffer at once, default 256
   * MiB, at least `partSize`. Each upload holds one part's worth (less when its declared size is smaller).
   */
  uploadBufferBytes?: number;
  /**
   * How long a new upload waits for its buffer when the budget is spent (default 10,000 ms) before it is
   * refused with `storage-busy` (503 `SlowDown`, REST 503 with `Retry-After`).
   */
  uploadBufferWaitMs?: number;
  /**
   * Objects (PUTs, REST uploads, completed multipart uploads) whose length is known before their body is read
   * and at most this many bytes (default 64 KiB, at most 1 MiB; 0: none) are kept in their PostgreSQL row, never
   * in the object store: one statement to write or read, committed with the row. Parts always go to the store.
   */
  inlineMaxBytes?: number;
  /** How long a body being written is safe from the sweep (default 1 hour): longer than any upload takes. */
  pendingGraceMs?: number;
  /** How often the sweep (and upload expiry) runs (default every 60 s; 0: only when `sweep()` is called). */
  sweepIntervalMs?: number;
  /** Unfinished uploads (and completed ones' kept answers) older than this are expired (default 7 days). */
  multipartExpiryMs?: number;
  /** Multipart uploads one tenant may have in progress (default 1000); past it, `storage-busy`. */
  maxOpenUploadsPerTenant?: number;
}

/** A `BlobStorageBinding` on an S3-compatible bucket with metadata in PostgreSQL. */
export interface S3BlobStorage extends BlobStorageBinding {
  readonly bucket: string;
  /**
   * Deletes backend objects no row references: bodies whose writer died (once their grace period ended)
   * and objects replaced or deleted whose removal failed at the time. Safe on any number of servers at once.
   */
  sweep(): Promise<Result<number, BlobError>>;
  /** One bucket lookup (HeadBucket) bounded by `timeoutMs`, for readiness probes: the store answers now. */
  checkObjectStore(timeoutMs: number): Promise<Result<true, BlobError>>;
  /** Stops the periodic sweep (waiting for one in progress) and the S3 client; the pool stays the caller's. */
  close(): Promise<void>;
}

/**
 * Opens blob storage on a bucket: checks that the bucket answers with these credentials (a wrong bucket
 * or key is an error naming the bucket, never the secret), then serves the binding. Never throws.
 */
export async function openS3BlobStorage(options: S3BlobStorageOptions): Promise<Result<S3BlobStorage, BlobError>> {
  const partSize = options.partSize ?? 8 * MiB;
  if (!Number.isSafeInteger(partSize) || partSize < 5 * MiB) {
    return err({ code: 'blob-storage-error', message: `partSize must be at least 5 MiB, got ${partSize}` });
  }
  const uploadBufferBytes = options.uploadBufferBytes ?? DEFAULT_UPLOAD_BUFFER_BYTES;
  if (!Number.isSafeInteger(uploadBufferBytes) || uploadBufferBytes < partSize) {
    const message = `uploadBufferBytes must be at least partSize (${partSize}), got ${uploadBufferBytes}`;
    return err({ code: 'blob-storage-error', message });
  }
  const inlineMaxBytes = options.inlineMaxBytes ?? DEFAULT_INLINE_MAX_BYTES;
  if (!Number.isSafeInteger(inlineMaxBytes) || inlineMaxBytes < 0 || inlineMaxBytes > MAX_INLINE_MAX_BYTES) {
    const message = `inlineMaxBytes must be 0..${MAX_INLINE_MAX_BYTES}, got ${inlineMaxBytes}`;
    return err({ code: 'blob-storage-error', message });
  }
  const uploads = {
    budget: new ByteBudget(uploadBufferBytes),
    waitMs: options.uploadBufferWaitMs ?? DEFAULT_UPLOAD_BUFFER_WAIT_MS,
  };
  let client: ReturnType<typeof createBackendClient>;
  try {
    client = createBackendClient(options.backend, options);
  } catch (cause) {
    return blobStorageError(cause);
  }
  const store = new ObjectStore(client, options.backend.bucket, partSize, uploads);
  const reachable = await store.checkBucket();
  if (reachable.kind === 'err') {
    client.destroy();
    return reachable;
  }
  const pool = options.pool;
  const sweepOnce = () => sweepUnreferenced(pool, store);
  // Sweeps and expiries run one at a time; `close()` waits for the one in progress.
  let running: Promise<unknown> = Promise.resolve();
  const serial = <T>(step: () => Promise<T>): Promise<T> => {
    const next = running.then(step, step);
    running = next.catch(() => undefined);
    return next;
  };
  const sweep = () => serial(sweepOnce);
  const bytes = s3Bytes({
    pool,
    store,
    prefix: options.prefix ?? '',
    pendingGraceMs: options.pendingGraceMs ?? HOUR_MS,
    inlineMaxBytes,
  });
  const limits =
    options.maxOpenUploadsPerTenant !== undefined ? { maxOpenUploadsPerTenant: options.maxOpenUploadsPerTenant } : {};
  const binding = createBlobStorage({ rows: createPostgresBlobRows(pool), bytes }, limits);
  const expiryMs = options.multipartExpiryMs ?? DEFAULT_MULTIPART_EXPIRY_MS;
  // A periodic step expires old uploads first, so the parts it discards are swept in the same step.
  const maintain = () =>
    serial(async () => {
      await binding.expireMultipartUploads(new Date(Date.now() - expiryMs));
      return sweepOnce();
    });
  const interval = options.sweepIntervalMs ?? 60_000;
  const timer = interval > 0 ? setInterval(() => void maintain(), interval) : undefined;
  timer?.unref();
  let closed = false;
  return ok({
    ...binding,
    bucket: options.backend.bucket,
    sweep,
    checkObjectStore: (timeoutMs) => store.checkBucket(AbortSignal.timeout(timeoutMs)),
    async close() {
      if (closed) return;
      closed = true;
      if (timer !== undefined) clearInterval(timer);
      await running;
      client.destroy();
    },
  });
}
