import type { BlobBody, BlobError, BodyDigests, BodyExpectations } from '@kindgi/bindings';
import { err, messageOf, type Result } from '@kindgi/protocol';
import {
  discardObject,
  forgetPending,
  markPending,
  notePendingUpload,
  PendingObjectLost,
  type PostgresPool,
} from '@kindgi/store-postgres';
import type { ObjectStore } from './object-store.js';

/** What every operation of the binding shares. */
export interface StorageContext {
  pool: PostgresPool;
  store: ObjectStore;
  /** Prepended to every object name in the bucket. */
  prefix: string;
  /** How long a body being written is safe from the sweep. */
  pendingGraceMs: number;
}

/** An unexpected failure (database, object store) as the storage error callers get. */
export function storageError(cause: unknown): { kind: 'err'; error: BlobError } {
  const message = messageOf(cause);
  if (cause instanceof PendingObjectLost) return err({ code: 'blob-storage-error', message, cause });
  return err({ code: 'blob-storage-error', message: `blob storage failed: ${message}`, cause });
}

/** Runs an operation so that it never throws: anything unexpected becomes `blob-storage-error`. */
export async function guarded<T>(run: () => Promise<Result<T, BlobError>>): Promise<Result<T, BlobError>> {
  try {
    return await run();
  } catch (cause) {
    return storageError(cause);
  }
}

/**
 * Writes a body to a fresh object, recorded in the intent log first: if this process dies before a row
 * references the object, the sweep deletes it after the grace period. A failed body is cleaned up here.
 */
export async function writePending(
  context: StorageContext,
  objectKey: string,
  body: BlobBody,
  expect: BodyExpectations,
): Promise<Result<BodyDigests, BlobError>> {
  await markPending(context.pool, objectKey, context.pendingGraceMs);
  const written = await context.store.write(objectKey, body, expect, (uploadId) =>
    notePendingUpload(context.pool, objectKey, uploadId),
  );
  if (written.kind === 'err' && written.cleaned === true) {
    await forgetPending(context.pool, objectKey).catch(() => undefined);
  }
  const { cleaned: _cleaned, ...result } = written;
  return result as Result<BodyDigests, BlobError>;
}

/**
 * Gives up on an object a commit failed to reference. When the sweep already took its intent-log mark (the
 * write outlived its grace period) the bytes written since would be nobody's: marked again, due at once.
 */
export async function abandon(context: StorageContext, objectKey: string, cause: unknown): Promise<void> {
  if (!(cause instanceof PendingObjectLost)) return;
  await discardObject(context.pool, objectKey).catch(() => undefined);
  await discardNow(context, [objectKey]);
}

/**
 * Deletes objects no row references any more, at once; one that cannot be deleted now stays in the intent
 * log for the sweep, so a failure here is never the caller's.
 */
export async function discardNow(context: StorageContext, objectKeys: readonly string[]): Promise<void> {
  const queue = [...objectKeys];
  const worker = async () => {
    for (let objectKey = queue.shift(); objectKey !== undefined; objectKey = queue.shift()) {
      if (await context.store.remove(objectKey)) {
        await forgetPending(context.pool, objectKey).catch(() => undefined);
      }
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]).catch(() => undefined);
}
