import { describe, expect, it } from 'vitest';

// Each entry point's runtime exports, by name: adding, renaming or removing one must show up in review as a
// change to these lists (types are checked by the packages that import them).
describe('@kindgi/store-postgres public surface', () => {
  it('. exports exactly these names', async () => {
    const surface = await import('../src/index.js');
    expect(Object.keys(surface).sort()).toEqual([
      'MIGRATIONS_DIR',
      'NOW_MS',
      'PendingObjectLost',
      'PostgresListener',
      'RUN_EVENTS_CHANNEL',
      'RUN_QUEUE_CHANNEL',
      'claimPending',
      'createPostgresBlobRows',
      'createPostgresIdempotencyStore',
      'createPostgresPool',
      'createPostgresRunStore',
      'createPostgresSecretRows',
      'discardObject',
      'forgetPending',
      'hideDatabasePassword',
      'inTransaction',
      'markPending',
      'maskDatabaseUrl',
      'migrate',
      'notePendingUpload',
      'openPostgresStores',
      'readMigrations',
      'readOrCreateSetting',
      'sortKey',
      'sweepDue',
    ]);
  });
});
