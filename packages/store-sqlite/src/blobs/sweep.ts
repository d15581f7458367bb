import type { KindgiDatabase } from '../database.js';

/** What the sweep at open asks of the rows, once a crash may have left rows and files out of step. */
export interface SqliteSweepRows {
  /**
   * Deletes the rows whose bytes are gone: objects kept outside the database whose file is missing, then parts
   * whose file is missing. Returns how many rows it deleted.
   */
  dropRowsWithoutFiles(
    objectFileExists: (blobId: string) => boolean,
    partFileExists: (file: string) => boolean,
  ): number;
  /** Whether a row references an object's file (so the file is no leftover). */
  hasObject(blobId: string): boolean;
  /** Whether a row references a part's file. */
  hasPart(file: string): boolean;
}

/** The sweep's queries on the blob rows of `db`. */
export function sqliteSweepRows(db: KindgiDatabase): SqliteSweepRows {
  const blobExists = db.prepare<[string], { one: number }>('SELECT 1 AS one FROM blobs WHERE blob_id = ?');
  const partExists = db.prepare<[string], { one: number }>('SELECT 1 AS one FROM upload_parts WHERE file = ?');
  return {
    dropRowsWithoutFiles(objectFileExists, partFileExists) {
      let removed = 0;
      // Objects kept inline have no file to lose.
      const fileBlobs = db
        .prepare<[], { blob_id: string }>(
          'SELECT blob_id FROM blobs WHERE NOT EXISTS (SELECT 1 FROM blob_inline WHERE blob_inline.blob_id = blobs.blob_id)',
        )
        .all();
      const deleteBlob = db.prepare<[string]>('DELETE FROM blobs WHERE blob_id = ?');
      for (const { blob_id } of fileBlobs) {
        if (!objectFileExists(blob_id)) removed += deleteBlob.run(blob_id).changes;
      }
      const parts = db.prepare<[], { file: string }>('SELECT file FROM upload_parts').all();
      const deletePart = db.prepare<[string]>('DELETE FROM upload_parts WHERE file = ?');
      for (const { file } of parts) {
        if (!partFileExists(file)) removed += deletePart.run(file).changes;
      }
      return removed;
    },
    hasObject: (blobId) => blobExists.get(blobId) !== undefined,
    hasPart: (file) => partExists.get(file) !== undefined,
  };
}
