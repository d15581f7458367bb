import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { err, messageOf, ok, type Result } from '@kindgi/protocol';
import type pg from 'pg';
import type { PostgresPool } from './pool.js';

/** The folder of this package's `NNN_name.sql` files (beside `src/` and `dist/`). */
export const MIGRATIONS_DIR = fileURLToPath(new URL('../migrations/', import.meta.url));

// Any constant shared by every Kindgi server: the lock serializes migrations across processes.
const MIGRATION_LOCK_KEY = 4_815_162_342;

// The query that was running reports the failure; the event itself carries nothing more.
const ignoreDropped = (): void => {};

const MIGRATION_FILE = /^(\d{3,})_[a-z0-9_]+\.sql$/;

/** One applied or pending migration. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Why migrating failed; `message` names the file and never the database URL. */
export interface MigrationError {
  code: 'migration-failed';
  message: string;
  cause?: unknown;
}

/** Reads `NNN_name.sql` files in version order; two files with one version are refused. */
export async function readMigrations(dir: string = MIGRATIONS_DIR): Promise<Migration[]> {
  const names = (await readdir(dir)).filter((name) => MIGRATION_FILE.test(name)).sort();
  const out: Migration[] = [];
  for (const name of names) {
    const version = Number((MIGRATION_FILE.exec(name) as RegExpExecArray)[1]);
    if (out.some((m) => m.version === version)) throw new Error(`two migrations have version ${version}: ${name}`);
    out.push({ version, name, sql: await readFile(`${dir}/${name}`, 'utf8') });
  }
  return out;
}

/**
 * Applies every migration not yet recorded in `schema_migrations`, each in its own transaction, while holding
 * a session advisory lock: N servers starting at once migrate once, the others wait and then find nothing to
 * do. Returns the names applied by this call.
 */
export async function migrate(
  pool: PostgresPool,
  dir: string = MIGRATIONS_DIR,
): Promise<Result<string[], MigrationError>> {
  let client: pg.PoolClient | undefined;
  let current = '';
  try {
    const migrations = await readMigrations(dir);
    client = await pool.connect();
    // Checked out, the client has no pool listener: a dropped connection must not end the process.
    client.on('error', ignoreDropped);
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    await client.query(
      `CREATE TABLE IF NOT EXISTS schema_migrations (
         version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`,
    );
    const done = new Set(
      (await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version),
    );
    const applied: string[] = [];
    for (const migration of migrations) {
      if (done.has(migration.version)) continue;
      current = migration.name;
      await client.query('BEGIN');
      try {
        await client.query(migration.sql);
        await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
          migration.version,
          migration.name,
        ]);
        await client.query('COMMIT');
      } catch (cause) {
        await client.query('ROLLBACK').catch(() => {});
        throw cause;
      }
      applied.push(migration.name);
    }
    return ok(applied);
  } catch (cause) {
    const reason = messageOf(cause);
    const where = current === '' ? '' : ` in ${current}`;
    return err({ code: 'migration-failed', message: `database migration failed${where}: ${reason}`, cause });
  } finally {
    if (client !== undefined) {
      // Ending the session releases the advisory lock even if the unlock itself fails.
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => {});
      client.removeListener('error', ignoreDropped);
      client.release(true);
    }
  }
}
