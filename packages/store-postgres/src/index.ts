export {
  claimPending,
  createPostgresBlobRows,
  discardObject,
  forgetPending,
  markPending,
  notePendingUpload,
  type PendingObject,
  PendingObjectLost,
  type Queryable,
  sortKey,
  sweepDue,
} from './blobs/index.js';
export { createPostgresIdempotencyStore } from './idempotency-store.js';
export { MIGRATIONS_DIR, type Migration, type MigrationError, migrate, readMigrations } from './migrate.js';
export { PostgresListener, RUN_EVENTS_CHANNEL, RUN_QUEUE_CHANNEL } from './notify.js';
export { type OpenPostgresError, openPostgresStores, type PostgresStores } from './open.js';
export {
  createPostgresPool,
  hideDatabasePassword,
  maskDatabaseUrl,
  type PostgresPool,
  type PostgresPoolOptions,
} from './pool.js';
export { createPostgresRunStore } from './run-store.js';
export { createPostgresSecretRows } from './secret-rows.js';
export { readOrCreateSetting } from './settings.js';
export { inTransaction, NOW_MS } from './tx.js';
