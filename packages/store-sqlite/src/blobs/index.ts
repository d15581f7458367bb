// Blob metadata in SQLite: the rows port of the blob core (store-postgres keeps the same rows in PostgreSQL),
// for blob-fs, which keeps the bytes in files.
import type { BlobRowsPort } from '@kindgi/bindings';
import type { KindgiDatabase } from '../database.js';
import { sqliteObjectRows } from './objects.js';
import type { SqliteBlobRefs } from './refs.js';
import { type SqliteSweepRows, sqliteSweepRows } from './sweep.js';
import { sqliteUploadRows } from './uploads.js';

export type { SqliteBlobRefs } from './refs.js';
export type { SqliteSweepRows } from './sweep.js';

/** The blob rows of the embedded database, and what a byte store runs on them at open. */
export interface SqliteBlobRows extends SqliteSweepRows {
  /** The blob core's rows port: objects (small ones with their bytes), uploads and parts. */
  readonly port: BlobRowsPort;
  /**
   * Drops uploads (and completed uploads' kept answers) older than `before`, synchronously, for a byte store
   * to run at open before it serves anything; returns the refs of bytes no row references any more.
   */
  expireUploads(before: Date): { expired: number; discarded: string[] };
}

/**
 * Blob metadata on the shared Kindgi database: a row per object (the bytes of a small one inline, their commits
 * grouped), multipart uploads and their parts. `refs` names the bytes kept outside the database.
 */
export function createSqliteBlobRows(db: KindgiDatabase, refs: SqliteBlobRefs): SqliteBlobRows {
  const objects = sqliteObjectRows(db, refs);
  const uploads = sqliteUploadRows(db, objects, refs);
  return { port: { ...objects.port, ...uploads.port }, expireUploads: uploads.expire, ...sqliteSweepRows(db) };
}
