import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IdempotencyStore, RunStore } from '@kindgi/bindings';
import { err, messageOf, ok, type Result } from '@kindgi/protocol';
import {
  hideDatabasePassword,
  maskDatabaseUrl,
  openPostgresStores,
  type PostgresPool,
  readOrCreateSetting,
} from '@kindgi/store-postgres';
import { createSqliteIdempotencyStore, createSqliteRunStore, type KindgiDatabase } from '@kindgi/store-sqlite';
import { z } from 'zod';
import type { ServerLogger } from '../telemetry/logger.js';

/** `database` in `kindgi.server.json`: shared state in PostgreSQL instead of the embedded SQLite file. */
export const databaseConfigSchema = z.strictObject({
  url: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'a database url starts with postgres:// (or postgresql://)')
    .optional(),
});

/** `runs` in `kindgi.server.json`: how this server queues and executes runs (docs/scaling.md). */
export const runsConfigSchema = z.strictObject({
  concurrencyPerPack: z.number().int().min(0).optional(),
  maxQueuedPerPack: z.number().int().min(1).optional(),
  maxQueuedPerTenant: z.number().int().min(1).optional(),
  queueTimeoutMs: z.number().int().min(1).optional(),
  leaseMs: z.number().int().min(100).optional(),
  pollMs: z.number().int().min(10).optional(),
  recordRetryMs: z.number().int().min(0).max(3_600_000).optional(),
});

/** `KINDGI_SERVER_DATABASE_URL`, when set (its value is a secret and is never quoted back). */
export function databaseFromEnv(env: NodeJS.ProcessEnv): { url: string } | undefined {
  const url = env.KINDGI_SERVER_DATABASE_URL;
  return url === undefined || url === '' ? undefined : { url };
}

/** The run and idempotency stores a server runs with, and the pool other stores may share. */
export interface StateStores {
  readonly kind: 'embedded' | 'postgres';
  readonly runStore: RunStore;
  readonly idempotencyStore: IdempotencyStore;
  /** With PostgreSQL: the pool, for the blob metadata to share. */
  readonly pool?: PostgresPool;
  close(): Promise<void>;
}

/**
 * Opens the run and idempotency stores: in PostgreSQL when `database.url` is set (connecting and migrating
 * now, so a wrong URL fails the start with the password masked), else in the embedded database, where runs
 * an earlier process left running are failed as `run-interrupted` (that process held their leases).
 */
export async function openStateStores(
  database: { url?: string | undefined } | undefined,
  embedded: KindgiDatabase,
  logger: ServerLogger,
): Promise<Result<StateStores, string[]>> {
  if (database?.url === undefined) {
    const runStore = createSqliteRunStore(embedded);
    const interrupted = runStore.failInterruptedRuns();
    if (interrupted.kind === 'ok' && interrupted.value.length > 0) {
      logger.log(
        'warn',
        'runs-interrupted',
        `failed ${interrupted.value.length} runs an earlier process left unfinished`,
        {
          runIds: interrupted.value.map((run) => run.runId),
        },
      );
    }
    return ok({
      kind: 'embedded',
      runStore,
      idempotencyStore: createSqliteIdempotencyStore(embedded),
      async close() {},
    });
  }
  const { url } = database;
  const masked = maskDatabaseUrl(url);
  const opened = await openPostgresStores({
    url,
    applicationName: 'kindgi-server',
    // Connection losses (PostgreSQL restarting) fail the requests that need it; the pool reconnects.
    onError: (cause) =>
      logger.log('warn', 'database-connection', `database ${masked}: ${hideDatabasePassword(cause.message, url)}`),
  });
  if (opened.kind === 'err') return err([opened.error.message]);
  const stores = opened.value;
  logger.log('info', 'database', `runs and idempotency in PostgreSQL at ${masked}`, { database: masked });
  return ok({
    kind: 'postgres',
    runStore: stores.runStore,
    idempotencyStore: stores.idempotencyStore,
    pool: stores.pool,
    close: () => stores.close(),
  });
}

/** The embedded cursor key's file in `dataDir`: readable by this user only, like `credentials.json`. */
const CURSOR_SECRET_FILE = 'cursor-secret';
const CURSOR_SECRET_SETTING = 'cursor-secret';

/** Reads the key kept in `dataDir`, making it on first start (`wx`: a second writer reads the first one's). */
function embeddedCursorSecret(dataDir: string): Result<string, string[]> {
  const path = join(dataDir, CURSOR_SECRET_FILE);
  try {
    writeFileSync(path, randomBytes(32).toString('base64url'), { flag: 'wx', mode: 0o600 });
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code !== 'EEXIST') return err([`${path}: ${messageOf(cause)}`]);
  }
  try {
    const secret = readFileSync(path, 'utf8').trim();
    return secret.length >= 32 ? ok(secret) : err([`${path}: the cursor secret is too short; delete the file`]);
  } catch (cause) {
    return err([`${path}: ${messageOf(cause)}`]);
  }
}

/**
 * The key sealing page cursors: `configured` when set; else one made once and kept where the runs live (the
 * PostgreSQL `settings` table, shared by every server on it, or a file in `dataDir`), so any server of the
 * deployment, and a restarted one, opens the cursors another issued.
 */
export async function resolveCursorSecret(
  configured: string | undefined,
  state: Pick<StateStores, 'pool'>,
  dataDir: string,
): Promise<Result<string, string[]>> {
  if (configured !== undefined) return ok(configured);
  if (state.pool === undefined) return embeddedCursorSecret(dataDir);
  const stored = await readOrCreateSetting(state.pool, CURSOR_SECRET_SETTING, randomBytes(32).toString('base64url'));
  return stored.kind === 'ok' ? stored : err([stored.error.message]);
}
