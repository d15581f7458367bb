import type { BlobError } from '@kindgi/bindings';
import { err, messageOf, type Result } from '@kindgi/protocol';

/** An unexpected failure (I/O, database) as the storage error callers get. */
export function storageError(cause: unknown): { kind: 'err'; error: BlobError } {
  const message = messageOf(cause);
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
