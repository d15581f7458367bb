import { join } from 'node:path';
import type { IdempotencyStore, RunStore, SecretRowsPort } from '@kindgi/bindings';
import { err, ok, type Result } from '@kindgi/protocol';
import { createPostgresSecretRows } from '@kindgi/store-postgres';
import { createSqliteSecretRows, openKindgiDatabase } from '@kindgi/store-sqlite';
import type { ServerConfig } from '../config/config.js';
import { blobDatabase, openServerBlobStorage, type ServerBlobStorage } from '../storage/blob-backend.js';
import { openStateStores, resolveCursorSecret } from '../storage/state-stores.js';
import type { ServerLogger } from '../telemetry/logger.js';
import type { ReadinessTargets } from './readiness.js';
import type { Teardown } from './teardown.js';

/** The server's durable state: the embedded database, the run and idempotency stores, blob storage. */
export interface ServerStorage {
  readonly blobStorage: ServerBlobStorage;
  readonly runStore: RunStore;
  readonly idempotencyStore: IdempotencyStore;
  /** The key sealing page cursors, shared by every server of the deployment (see resolveCursorSecret). */
  readonly cursorSecret: string;
  /** Where tenant secrets are kept: PostgreSQL with `database`, else the embedded database. */
  readonly secretRows: SecretRowsPort;
  /** What `/readyz` checks of this storage. */
  readonly readiness: Omit<ReadinessTargets, 'hosts'>;
}

/**
 * Opens the embedded database in `dataDir`, the state stores (there or in PostgreSQL) and blob storage;
 * each one, once open, goes on `teardown`.
 */
export async function openStorage(
  config: ServerConfig,
  logger: ServerLogger,
  teardown: Teardown,
): Promise<Result<ServerStorage, string[]>> {
  const database = openKindgiDatabase(config.dataDir);
  teardown.add('database', () => {
    database.close();
  });
  const state = await openStateStores(config.database, database, logger);
  if (state.kind === 'err') return err(state.error);
  teardown.add('state stores', () => state.value.close());
  const cursorSecret = await resolveCursorSecret(config.cursorSecret, state.value, config.dataDir);
  if (cursorSecret.kind === 'err') return err(cursorSecret.error);
  const storage = await openServerBlobStorage(config.blobs, {
    dataDir: config.dataDir,
    database,
    logger,
    ...(config.s3.multipartExpiryMs !== undefined ? { multipartExpiryMs: config.s3.multipartExpiryMs } : {}),
    ...(config.s3.maxOpenUploadsPerTenant !== undefined
      ? { maxOpenUploadsPerTenant: config.s3.maxOpenUploadsPerTenant }
      : {}),
    ...blobDatabase(config),
    ...(state.value.pool ? { pool: state.value.pool } : {}),
  });
  if (storage.kind === 'err') return err(storage.error);
  const blobStorage = storage.value;
  teardown.add('blob storage', () => blobStorage.close());
  return ok({
    blobStorage,
    runStore: state.value.runStore,
    idempotencyStore: state.value.idempotencyStore,
    cursorSecret: cursorSecret.value,
    secretRows: state.value.pool ? createPostgresSecretRows(state.value.pool) : createSqliteSecretRows(database),
    readiness: {
      database,
      sharedState: state.value.pool,
      blobStorage,
      objectsDir: config.blobs?.kind === 's3' ? undefined : join(config.dataDir, 'objects'),
      objectStore: blobStorage.checkObjectStore?.bind(blobStorage),
    },
  });
}
