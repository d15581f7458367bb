// The embedded database and its stores live in @kindgi/store-sqlite; re-exported so importers of blob-fs
// keep working.
export {
  createSqliteIdempotencyStore,
  createSqliteRunStore,
  createSqliteSecretRows,
  DATABASE_FILE,
  type DatabaseSource,
  type KindgiDatabase,
  openKindgiDatabase,
  prepareKindgiDatabase,
  type SqliteIdempotencyStore,
  type SqliteRunStore,
} from '@kindgi/store-sqlite';
export { type FsBlobStorage, type FsBlobStorageOptions, openFsBlobStorage } from './fs-storage.js';
