export {
  createSqliteBlobRows,
  type SqliteBlobRefs,
  type SqliteBlobRows,
  type SqliteSweepRows,
} from './blobs/index.js';
export {
  DATABASE_FILE,
  type DatabaseSource,
  type KindgiDatabase,
  openKindgiDatabase,
  prepareKindgiDatabase,
  resolveDatabase,
} from './database.js';
export { createSqliteIdempotencyStore, type SqliteIdempotencyStore } from './idempotency-store.js';
export { createSqliteRunStore, type SqliteRunStore } from './run-store.js';
export { createSqliteSecretRows } from './secret-rows.js';
