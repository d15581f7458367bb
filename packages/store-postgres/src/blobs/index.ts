// Blob metadata on PostgreSQL: the rows port of the blob core (blob-fs keeps the same rows in SQLite), shared
// by every server, plus the intent log of backend objects no row references yet (or any more).
import type { BlobRowsPort } from '@kindgi/bindings';
import type { PostgresPool } from '../pool.js';
import { postgresObjectRows } from './objects.js';
import { postgresUploadRows } from './uploads.js';

export {
  claimPending,
  forgetPending,
  markPending,
  notePendingUpload,
  type PendingObject,
  PendingObjectLost,
  sweepDue,
} from './pending.js';
export { discardObject, type Queryable, sortKey } from './sql.js';

/** The blob core's rows port on PostgreSQL: objects and multipart uploads, each change one transaction. */
export function createPostgresBlobRows(pool: PostgresPool): BlobRowsPort {
  return { ...postgresObjectRows(pool), ...postgresUploadRows(pool) };
}
