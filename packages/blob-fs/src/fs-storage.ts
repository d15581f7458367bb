import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  type BlobError,
  type BlobStorageBinding,
  blobStorageError,
  createBlobStorage,
  DEFAULT_MULTIPART_EXPIRY_MS,
} from '@kindgi/bindings';
import { err, ok, type Result } from '@kindgi/protocol';
import { createSqliteBlobRows, type DatabaseSource, type KindgiDatabase, resolveDatabase } from '@kindgi/store-sqlite';
import { BlobDirectory, FILE_REFS } from './directory.js';
import { sweep } from './fs-sweep.js';
import { claimDirectory, type DirectoryLock } from './ownership.js';

const HOUR_MS = 60 * 60 * 1000;

/** Where a filesystem blob storage keeps its files, and which database holds its rows. */
export interface FsBlobStorageOptions {
  /** The directory for object files (`blobs/`, `parts/`, `tmp/`); created when missing. */
  dataDir: string;
  /** The shared Kindgi database; by default `<dataDir>/kindgi.sqlite`. */
  database?: DatabaseSource;
  /**
   * Age after which an unfinished multipart upload is aborted (and a completed one's answer, kept for retried
   * completions, forgotten). Default 7 days. Swept at open and every `expirySweepMs` (default 1 hour).
   */
  multipartExpiryMs?: number;
  expirySweepMs?: number;
  /** Multipart uploads one tenant may have in progress (default 1000); past it, `storage-busy`. */
  maxOpenUploadsPerTenant?: number;
  /**
   * Objects up to this many bytes (default 64 KiB) are kept inside the database, and concurrent ones committed
   * together: one fsync for many small PUTs instead of three each. Larger objects go to files.
   */
  inlineMaxBytes?: number;
}

const DEFAULT_INLINE_MAX_BYTES = 64 * 1024;

/** A `BlobStorageBinding` on a directory; `close()` releases it (and the database, when it opened it). */
export interface FsBlobStorage extends BlobStorageBinding {
  readonly dataDir: string;
  readonly database: KindgiDatabase;
  /** How many leftovers of earlier crashes the sweep at open removed (files and rows). */
  readonly swept: number;
  close(): void;
}

/** Directories open in this process: a second open would sweep the first one's writes in flight. */
const openDirectories = new Set<string>();

/**
 * Opens durable blob storage on a directory: bytes in files named by blobId, metadata in SQLite. A body is
 * streamed to a temporary file, fsynced and renamed into place before its row commits, so a crash leaves the
 * old object or the new one; the sweep here removes whatever a crash left half-done.
 */
export function openFsBlobStorage(options: FsBlobStorageOptions): Result<FsBlobStorage, BlobError> {
  const dataDir = resolve(options.dataDir);
  if (openDirectories.has(dataDir)) {
    return err({ code: 'blob-storage-error', message: `${dataDir} is already open in this process` });
  }
  let opened: { db: KindgiDatabase; owned: boolean } | undefined;
  let lock: DirectoryLock | undefined;
  try {
    const claimed = claimDirectory(dataDir);
    if ('owner' in claimed) {
      return err({ code: 'blob-storage-error', message: `${options.dataDir} is in use by ${claimed.owner}` });
    }
    lock = claimed.lock;
    opened = resolveDatabase(options.database ?? options.dataDir);
    const { db, owned } = opened;
    const directory = new BlobDirectory(options.dataDir, options.inlineMaxBytes ?? DEFAULT_INLINE_MAX_BYTES);
    const rows = createSqliteBlobRows(db, FILE_REFS);
    const expiryMs = options.multipartExpiryMs ?? DEFAULT_MULTIPART_EXPIRY_MS;
    for (const ref of rows.expireUploads(new Date(Date.now() - expiryMs)).discarded) {
      rmSync(directory.path(ref), { force: true });
    }
    const swept = sweep(rows, directory);
    const limits =
      options.maxOpenUploadsPerTenant !== undefined ? { maxOpenUploadsPerTenant: options.maxOpenUploadsPerTenant } : {};
    const binding = createBlobStorage({ rows: rows.port, bytes: directory }, limits);
    // A failing database shows up on the requests that use it; the next sweep retries.
    const timer = setInterval(
      () => void binding.expireMultipartUploads(new Date(Date.now() - expiryMs)),
      options.expirySweepMs ?? HOUR_MS,
    );
    timer.unref();
    openDirectories.add(dataDir);
    return ok({
      ...binding,
      dataDir,
      database: db,
      swept,
      close() {
        clearInterval(timer);
        if (!openDirectories.delete(dataDir)) return;
        if (owned) db.close();
        claimed.lock.release();
      },
    });
  } catch (cause) {
    if (opened?.owned) opened.db.close();
    lock?.release();
    return blobStorageError(cause);
  }
}
