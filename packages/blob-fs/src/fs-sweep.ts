import { existsSync } from 'node:fs';
import type { BlobMeta, BlobPutInput } from '@kindgi/bindings';
import { writeConditionsHold } from '@kindgi/bindings';
import type { BlobDirectory } from './directory.js';
import type { BlobRows } from './rows.js';
import type { UploadRows } from './upload-rows.js';

/** Whether the put's conditions hold against the current object, looked up only when there are any. */
export function preconditionHolds(current: () => BlobMeta | undefined, input: BlobPutInput): boolean {
  if (input.ifNoneMatch === undefined && input.ifMatch === undefined) return true;
  return writeConditionsHold(current(), input);
}

/** Removes what a crash left half-done: rows whose files are gone, then files and parts without rows. */
export function sweep(rows: BlobRows, uploads: UploadRows, directory: BlobDirectory): number {
  let removed = 0;
  for (const blobId of rows.allBlobIds()) {
    if (!existsSync(directory.blobPath(blobId))) {
      rows.db.prepare('DELETE FROM blobs WHERE blob_id = ?').run(blobId);
      removed++;
    }
  }
  for (const part of uploads.allParts()) {
    if (!existsSync(directory.partPath(part.file))) {
      uploads.deletePart(part.upload_id, part.part_number);
      removed++;
    }
  }
  return (
    removed +
    directory.sweepFiles(
      (blobId) => rows.hasBlob(blobId),
      (file) => uploads.hasPart(file),
    )
  );
}
