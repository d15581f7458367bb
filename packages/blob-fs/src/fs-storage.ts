import { randomUUID } from 'node:crypto';
import { open } from 'node:fs/promises';
import { resolve } from 'node:path';
import {
  ARTIFACTS_BUCKET,
  type BlobError,
  type BlobMeta,
  type BlobPutInput,
  type BlobReadResult,
  type BlobStorageBinding,
  type ByteRange,
  buildMeta,
  checkAddress,
  clampListLimit,
  DEFAULT_MULTIPART_EXPIRY_MS,
  decodeListCursor,
  encodeListCursor,
  keyNotFound,
  listByPrefixOver,
  preconditionFailed,
} from '@kindgi/bindings';
import { err, ok, type Result } from '@kindgi/protocol';
import { type DatabaseSource, type KindgiDatabase, resolveDatabase } from './database.js';
import { BlobDirectory, removeQuietly } from './directory.js';
import { bufferStream, fileStream } from './file-stream.js';
import { expireUploads, multipartOperations } from './fs-multipart.js';
import { preconditionHolds, sweep } from './fs-sweep.js';
import { GroupCommit } from './group-commit.js';
import { guarded, storageError } from './guarded.js';
import { claimDirectory, releaseDirectory } from './ownership.js';
import { BlobRows, type StoredRead } from './rows.js';
import { UploadRows } from './upload-rows.js';

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
  try {
    opened = resolveDatabase(options.database ?? options.dataDir);
    const { db, owned } = opened;
    const owner = claimDirectory(db);
    if (owner !== undefined) {
      if (owned) db.close();
      return err({ code: 'blob-storage-error', message: `${options.dataDir} is in use by process ${owner}` });
    }
    const directory = new BlobDirectory(options.dataDir);
    const rows = new BlobRows(db);
    const uploads = new UploadRows(db);
    const expiryMs = options.multipartExpiryMs ?? DEFAULT_MULTIPART_EXPIRY_MS;
    const expire = () => expireUploads(uploads, directory, new Date(Date.now() - expiryMs));
    expire();
    const swept = sweep(rows, uploads, directory);
    const timer = setInterval(() => {
      try {
        expire();
      } catch {
        // The next sweep retries; a failing database shows up on the requests that use it.
      }
    }, options.expirySweepMs ?? HOUR_MS);
    timer.unref();
    openDirectories.add(dataDir);
    return ok({
      ...createBinding(dataDir, db, rows, directory, swept, options.inlineMaxBytes ?? DEFAULT_INLINE_MAX_BYTES),
      ...multipartOperations(rows, uploads, directory),
      close() {
        clearInterval(timer);
        if (!openDirectories.delete(dataDir)) return;
        releaseDirectory(db);
        if (owned) db.close();
      },
    });
  } catch (cause) {
    if (opened?.owned) opened.db.close();
    return storageError(cause);
  }
}

function createBinding(
  dataDir: string,
  db: KindgiDatabase,
  rows: BlobRows,
  directory: BlobDirectory,
  swept: number,
  inlineMax: number,
): Omit<FsBlobStorage, keyof ReturnType<typeof multipartOperations> | 'close'> {
  const commit = db.transaction((meta: BlobMeta, input: BlobPutInput) => {
    if (!preconditionHolds(() => rows.at(meta.tenantId, meta.bucket, meta.key), input))
      return { refused: true as const };
    return { refused: false as const, replaced: rows.replace(meta) };
  });

  const inlineCommits = new GroupCommit(db, (write: { meta: BlobMeta; input: BlobPutInput; data: Buffer }) => {
    if (!preconditionHolds(() => rows.at(write.meta.tenantId, write.meta.bucket, write.meta.key), write.input)) {
      return { refused: true as const };
    }
    const replaced = rows.replace(write.meta);
    rows.putInline(write.meta.blobId, write.data);
    return { refused: false as const, replaced };
  });

  async function write(tenantId: string, bucket: string, key: string | undefined, input: BlobPutInput) {
    const blobId = randomUUID();
    const address = key ?? blobId;
    const checked = checkAddress(bucket, address);
    if (checked.kind === 'err') return checked;
    if (!preconditionHolds(() => rows.at(tenantId, bucket, address), input)) return err(preconditionFailed());
    const received = await directory.receiveSmall(input.bytes, input, inlineMax);
    if (received.kind === 'err') return received;
    if ('inline' in received.value) {
      const { inline: data, size, sha256, md5 } = received.value;
      const createdAt = new Date().toISOString();
      const meta = buildMeta({ blobId, tenantId, bucket, key: address }, input, {
        size,
        hash: sha256,
        etag: md5,
        createdAt,
      });
      let outcome: Awaited<ReturnType<typeof inlineCommits.submit>>;
      try {
        outcome = await inlineCommits.submit({ meta, input, data });
      } catch (cause) {
        return storageError(cause);
      }
      if (outcome.refused) return err(preconditionFailed());
      if (outcome.replaced !== undefined) await removeQuietly(directory.blobPath(outcome.replaced));
      return ok(meta);
    }
    const target = directory.blobPath(blobId);
    const published = await directory.publish(received.value.temp, target);
    if (published.kind === 'err') return published;
    const meta = buildMeta({ blobId, tenantId, bucket, key: address }, input, {
      size: received.value.size,
      hash: received.value.sha256,
      etag: received.value.md5,
      createdAt: new Date().toISOString(),
    });
    let outcome: ReturnType<typeof commit>;
    try {
      outcome = commit.immediate(meta, input);
    } catch (cause) {
      await removeQuietly(target);
      return storageError(cause);
    }
    if (outcome.refused) {
      await removeQuietly(target);
      return err(preconditionFailed());
    }
    if (outcome.replaced !== undefined) await removeQuietly(directory.blobPath(outcome.replaced));
    return ok(meta);
  }

  async function read(
    { meta, data }: StoredRead,
    range: ByteRange | undefined,
  ): Promise<Result<BlobReadResult, BlobError> | null> {
    const start = Math.max(0, range?.start ?? 0);
    const end = Math.min(range?.end ?? meta.size - 1, meta.size - 1);
    if (data !== undefined) {
      const bytes = data.subarray(start, Math.max(start, end + 1));
      return ok({ meta, stream: bufferStream(bytes), bytes });
    }
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      handle = await open(directory.blobPath(meta.blobId), 'r');
    } catch (cause) {
      // Replaced or deleted between the row lookup and the open.
      if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw cause;
    }
    return ok({ meta, stream: fileStream(handle, start, end) });
  }

  async function readLatest(lookup: () => StoredRead | undefined, range: ByteRange | undefined, missing: BlobError) {
    for (let attempt = 0; attempt < 3; attempt++) {
      const stored = lookup();
      if (stored === undefined) break;
      const result = await read(stored, range);
      if (result !== null) return result;
    }
    return err(missing);
  }

  async function removeBlob(tenantId: string, blobId: string): Promise<boolean> {
    if (!rows.remove(tenantId, blobId)) return false;
    await removeQuietly(directory.blobPath(blobId));
    return true;
  }

  return {
    dataDir,
    database: db,
    swept,
    put: (tenantId, input) => guarded(() => write(tenantId, ARTIFACTS_BUCKET, undefined, input)),
    putByKey: (tenantId, bucket, key, input) => guarded(() => write(tenantId, bucket, key, input)),
    get: (tenantId, blobId, options) =>
      guarded(() =>
        readLatest(() => rows.readById(tenantId, blobId), options?.range, {
          code: 'blob-not-found',
          message: `blob ${blobId} does not exist`,
          blobId,
        }),
      ),
    getByKey: (tenantId, bucket, key, options) =>
      guarded(() => readLatest(() => rows.readAt(tenantId, bucket, key), options?.range, keyNotFound(bucket, key))),
    head: (tenantId, blobId) => guarded(async () => ok(rows.get(tenantId, blobId) ?? null)),
    headByKey: (tenantId, bucket, key) => guarded(async () => ok(rows.at(tenantId, bucket, key) ?? null)),
    delete: (tenantId, blobId) => guarded(async () => ok({ deleted: await removeBlob(tenantId, blobId) })),
    deleteByKey: (tenantId, bucket, key) =>
      guarded(async () => {
        const meta = rows.at(tenantId, bucket, key);
        return ok({ deleted: meta !== undefined && (await removeBlob(tenantId, meta.blobId)) });
      }),
    list: (tenantId, filter, cursor, limit) =>
      guarded(async () => {
        let below = Number.MAX_SAFE_INTEGER;
        if (cursor !== undefined) {
          const decoded = decodeListCursor(cursor);
          if (decoded === undefined) return err({ code: 'invalid-key', message: 'the list cursor is not valid' });
          below = decoded;
        }
        const size = clampListLimit(limit);
        const found = rows.list(tenantId, filter, below, size + 1);
        const page = found.slice(0, size);
        const data = page.map((row) => row.meta);
        const last = page.at(-1);
        return ok(
          found.length > size && last !== undefined ? { data, nextCursor: encodeListCursor(last.seq) } : { data },
        );
      }),
    listByPrefix: (tenantId, bucket, input) =>
      guarded(async () => {
        const page = listByPrefixOver((bound) => rows.first(tenantId, bucket, bound), input);
        if (page.kind === 'err') return page;
        const { nextContinuationToken, ...rest } = page.value;
        const contents = rest.contents.map((entry) => entry.meta);
        return ok({ ...rest, contents, ...(nextContinuationToken !== undefined ? { nextContinuationToken } : {}) });
      }),
  };
}
