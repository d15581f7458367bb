import type { IdempotencyStore, RunStore } from '@kindgi/bindings';
import { err, ok, type Result } from '@kindgi/protocol';
import { createPostgresIdempotencyStore } from './idempotency-store.js';
import { migrate } from './migrate.js';
import { PostgresListener } from './notify.js';
import {
  createPostgresPool,
  hideDatabasePassword,
  maskDatabaseUrl,
  type PostgresPool,
  type PostgresPoolOptions,
} from './pool.js';
import { createPostgresRunStore } from './run-store.js';

/** The shared stores of one server process on one PostgreSQL database. */
export interface PostgresStores {
  readonly pool: PostgresPool;
  readonly listener: PostgresListener;
  readonly runStore: RunStore;
  readonly idempotencyStore: IdempotencyStore;
  /** Stops notifications and closes the pool. */
  close(): Promise<void>;
}

/** Why the database could not be opened; `message` names the masked URL, never the password. */
export interface OpenPostgresError {
  code: 'database-unreachable' | 'migration-failed';
  message: string;
}

/**
 * Connects to PostgreSQL (one round trip, so a wrong URL, password or database fails here, not at the first
 * request), applies pending migrations under the advisory lock, and creates the stores.
 */
export async function openPostgresStores(
  options: PostgresPoolOptions,
): Promise<Result<PostgresStores, OpenPostgresError>> {
  const masked = maskDatabaseUrl(options.url);
  let pool: PostgresPool;
  try {
    pool = createPostgresPool(options);
  } catch (cause) {
    return err({ code: 'database-unreachable', message: `database ${masked}: ${reason(cause, options.url)}` });
  }
  try {
    await pool.query('SELECT 1');
  } catch (cause) {
    await pool.end().catch(() => undefined);
    return err({ code: 'database-unreachable', message: `database ${masked}: ${reason(cause, options.url)}` });
  }
  const migrated = await migrate(pool);
  if (migrated.kind === 'err') {
    await pool.end().catch(() => undefined);
    return err({
      code: 'migration-failed',
      message: `database ${masked}: ${hideDatabasePassword(migrated.error.message, options.url)}`,
    });
  }
  const listener = new PostgresListener(options.url, options.onError);
  return ok({
    pool,
    listener,
    runStore: createPostgresRunStore(pool, listener),
    idempotencyStore: createPostgresIdempotencyStore(pool),
    async close() {
      await listener.close();
      await pool.end().catch(() => undefined);
    },
  });
}

function reason(cause: unknown, url: string): string {
  return hideDatabasePassword(cause instanceof Error ? cause.message || cause.name : String(cause), url);
}
