// Blob metadata on PostgreSQL: the rows blob-fs keeps in SQLite, shared by every server, plus the intent
// log of backend objects no row references yet (or any more).
export { listObjectsByPrefix } from './listing.js';
export {
  type CommitOutcome,
  commitObject,
  listObjects,
  objectAt,
  objectById,
  type Precondition,
  removeObject,
} from './objects.js';
export {
  claimPending,
  forgetPending,
  markPending,
  notePendingUpload,
  type PendingObject,
  PendingObjectLost,
  sweepDue,
} from './pending.js';
export {
  type CompletedUpload,
  discardObject,
  type PartRecord,
  type Queryable,
  sortKey,
  type UploadInfo,
} from './sql.js';
export {
  abortUpload,
  completeUpload,
  createUpload,
  expireUploads,
  findUpload,
  listUploadParts,
  listUploads,
  recordPart,
} from './uploads.js';
