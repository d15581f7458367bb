export {
  DATABASE_FILE,
  type DatabaseSource,
  type KindgiDatabase,
  openKindgiDatabase,
  prepareKindgiDatabase,
} from './database.js';
export { type FsBlobStorage, type FsBlobStorageOptions, openFsBlobStorage } from './fs-storage.js';
export { createSqliteIdempotencyStore, type SqliteIdempotencyStore } from './idempotency-store.js';
export { createSqliteRunStore, type SqliteRunStore } from './run-store.js';
export { createSqliteSecretRows } from './secret-rows.js';
