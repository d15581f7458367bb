// One implementation of the blob semantics over two small ports (bytes, rows); every blob storage
// (blob-fs, blob-s3, the in-memory one of @kindgi/testing) is an adapter implementing them.
export { type BudgetLease, ByteBudget } from './byte-budget.js';
export { blobStorageError } from './guard.js';
export { type HashAlgorithm, HashWorkerPool, hashWorkerPool } from './hash-workers.js';
export { type BlobStorageLimits, DEFAULT_MAX_OPEN_UPLOADS_PER_TENANT } from './multipart.js';
export type {
  BlobBytesPort,
  BlobRowsPort,
  BlobStoragePorts,
  BytesTarget,
  CommitOutcome,
  CompleteOutcome,
  ObjectRowsPort,
  ObjectWhere,
  StoredObject,
  StoredPart,
  StoredUpload,
  UploadAnswer,
  UploadRowsPort,
  WriteConditions,
  WrittenBytes,
} from './ports.js';
export { listByPrefixOverScan, type ScanObjects } from './scan-listing.js';
export { createBlobStorage } from './storage.js';
