import { existsSync } from 'node:fs';
import type { SqliteSweepRows } from '@kindgi/store-sqlite';
import { type BlobDirectory, blobRef, partRef } from './directory.js';

/**
 * Removes what a crash left half-done: rows whose files are gone, then files and parts without rows. Runs
 * once at open, synchronously, while this process owns the directory and before it serves anything.
 */
export function sweep(rows: SqliteSweepRows, directory: BlobDirectory): number {
  const removed = rows.dropRowsWithoutFiles(
    (blobId) => existsSync(directory.path(blobRef(blobId))),
    (file) => existsSync(directory.path(partRef(file))),
  );
  return removed + directory.sweepFiles(rows.hasObject, rows.hasPart);
}
