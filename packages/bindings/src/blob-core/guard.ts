import { err, messageOf, type Result } from '@kindgi/protocol';
import type { BlobError } from '../blob-storage.js';
import type { BlobBytesPort } from './ports.js';

/** An unexpected failure (I/O, database, object store) as the storage error callers get. */
export function blobStorageError(cause: unknown): { kind: 'err'; error: BlobError } {
  return err({ code: 'blob-storage-error', message: `blob storage failed: ${messageOf(cause)}`, cause });
}

/** Runs an operation so that it never throws: anything unexpected becomes `blob-storage-error`. */
export async function guarded<T>(run: () => Promise<Result<T, BlobError>>): Promise<Result<T, BlobError>> {
  try {
    return await run();
  } catch (cause) {
    return blobStorageError(cause);
  }
}

/** An upload that is not open at this address (never begun, aborted, expired, completed, or elsewhere). */
export function uploadNotFound(uploadId: string): { kind: 'err'; error: BlobError } {
  return err({ code: 'upload-not-found', message: `upload ${uploadId} does not exist`, uploadId });
}

/**
 * Runs a commit of freshly written bytes: when it throws, the bytes port cleans up what the rows certainly do
 * not reference (the error then reaches `guarded`).
 */
export async function committing<T>(bytes: BlobBytesPort, ref: string, commit: () => Promise<T>): Promise<T> {
  try {
    return await commit();
  } catch (cause) {
    await bytes.abandon(ref, cause);
    throw cause;
  }
}
