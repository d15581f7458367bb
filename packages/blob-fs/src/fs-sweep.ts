import { existsSync } from 'node:fs';
import type { KindgiDatabase } from './database.js';
import { type BlobDirectory, blobRef, partRef } from './directory.js';

/**
 * Removes what a crash left half-done: rows whose files are gone, then files and parts without rows. Runs
 * once at open, synchronously, while this process owns the directory and before it serves anything.
 */
export function sweep(db: KindgiDatabase, directory: BlobDirectory): number {
  let removed = 0;
  // Objects kept inline have no file to lose.
  const fileBlobs = db
    .prepare<[], { blob_id: string }>(
      'SELECT blob_id FROM blobs WHERE NOT EXISTS (SELECT 1 FROM blob_inline WHERE blob_inline.blob_id = blobs.blob_id)',
    )
    .all();
  const deleteBlob = db.prepare<[string]>('DELETE FROM blobs WHERE blob_id = ?');
  for (const { blob_id } of fileBlobs) {
    if (!existsSync(directory.path(blobRef(blob_id)))) removed += deleteBlob.run(blob_id).changes;
  }
  const parts = db.prepare<[], { file: string }>('SELECT file FROM upload_parts').all();
  const deletePart = db.prepare<[string]>('DELETE FROM upload_parts WHERE file = ?');
  for (const { file } of parts) {
    if (!existsSync(directory.path(partRef(file)))) removed += deletePart.run(file).changes;
  }
  const blobExists = db.prepare<[string], { one: number }>('SELECT 1 AS one FROM blobs WHERE blob_id = ?');
  const partExists = db.prepare<[string], { one: number }>('SELECT 1 AS one FROM upload_parts WHERE file = ?');
  return (
    removed +
    directory.sweepFiles(
      (blobId) => blobExists.get(blobId) !== undefined,
      (file) => partExists.get(file) !== undefined,
    )
  );
}
