import {
  SECRET_AUDIT_COLUMN_LIST,
  SECRET_COLUMN_LIST,
  type SecretAuditColumns,
  type SecretColumns,
  type SecretRowsPort,
  secretAuditOf,
  secretRowOf,
  secretStorageFailure,
} from '@kindgi/bindings';
import { err, ok, type Result } from '@kindgi/protocol';
import type { PostgresPool } from './pool.js';
import { inTransaction, sql } from './tx.js';

// The database's failure is the store's outage; its message never holds a value (values are parameters).
async function attempt<T>(work: () => Promise<T>): Promise<Result<T, ReturnType<typeof secretStorageFailure>>> {
  try {
    return ok(await work());
  } catch (cause) {
    return err(secretStorageFailure(cause));
  }
}

const UPSERT = `INSERT INTO secrets (${SECRET_COLUMN_LIST}) VALUES ($1, $2, $3, 1, $4, $5, $6, $7, $7, $8)
  ON CONFLICT (tenant_id, env, name) DO UPDATE SET version = secrets.version + 1, kek_id = EXCLUDED.kek_id,
    wrapped_key = EXCLUDED.wrapped_key, ciphertext = EXCLUDED.ciphertext, updated_at = EXCLUDED.updated_at,
    updated_by = EXCLUDED.updated_by
  RETURNING ${SECRET_COLUMN_LIST}`;
const AUDIT =
  'INSERT INTO secret_audit (tenant_id, env, name, action, version, actor, at) VALUES ($1, $2, $3, $4, $5, $6, $7)';

/** The secrets rows port on PostgreSQL, shared by every server of the deployment. */
export function createPostgresSecretRows(pool: PostgresPool): SecretRowsPort {
  return {
    put: (write) =>
      attempt(() =>
        inTransaction(pool, async (client) => {
          const { tenantId, env, name } = write;
          const values = [tenantId, env, name, write.kekId, write.wrappedKey, write.ciphertext, write.at, write.actor];
          const row = secretRowOf((await sql<SecretColumns>(client, UPSERT, values)).rows[0] as SecretColumns);
          await sql(client, AUDIT, [tenantId, env, name, 'set', row.version, write.actor, write.at]);
          return row;
        }),
      ),
    read: (address) =>
      attempt(async () => {
        const found = await sql<SecretColumns>(
          pool,
          `SELECT ${SECRET_COLUMN_LIST} FROM secrets WHERE tenant_id = $1 AND env = $2 AND name = $3`,
          [address.tenantId, address.env, address.name],
        );
        return found.rows[0] ? secretRowOf(found.rows[0]) : null;
      }),
    readMany: (tenantId, env, names) =>
      attempt(async () => {
        const found = await sql<SecretColumns>(
          pool,
          `SELECT ${SECRET_COLUMN_LIST} FROM secrets WHERE tenant_id = $1 AND env = $2 AND name = ANY($3::text[])`,
          [tenantId, env, [...names]],
        );
        return found.rows.map(secretRowOf);
      }),
    list: (tenantId, { env, after, limit }) =>
      attempt(async () => {
        const found = await sql<SecretColumns>(
          pool,
          `SELECT ${SECRET_COLUMN_LIST} FROM secrets WHERE tenant_id = $1 AND ($2::text IS NULL OR env = $2)
            AND ($3::text IS NULL OR (env COLLATE "C", name COLLATE "C") > ($3 COLLATE "C", $4 COLLATE "C")) ORDER BY env COLLATE "C", name COLLATE "C" LIMIT $5`,
          [tenantId, env ?? null, after?.env ?? null, after?.name ?? '', limit],
        );
        return found.rows.map(secretRowOf);
      }),
    remove: (address, actor, at) =>
      attempt(() =>
        inTransaction(pool, async (client) => {
          const { tenantId, env, name } = address;
          const removed = await sql<SecretColumns>(
            client,
            `DELETE FROM secrets WHERE tenant_id = $1 AND env = $2 AND name = $3 RETURNING ${SECRET_COLUMN_LIST}`,
            [tenantId, env, name],
          );
          const row = removed.rows[0];
          if (!row) return null;
          await sql(client, AUDIT, [tenantId, env, name, 'delete', row.version, actor, at]);
          return secretRowOf(row);
        }),
      ),
    audit: (tenantId, { afterSeq, limit }) =>
      attempt(async () => {
        const found = await sql<SecretAuditColumns>(
          pool,
          `SELECT ${SECRET_AUDIT_COLUMN_LIST} FROM secret_audit WHERE tenant_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
          [tenantId, afterSeq ?? 0, limit],
        );
        return found.rows.map(secretAuditOf);
      }),
    wrappedByOthers: (kekId, limit) =>
      attempt(async () => {
        const found = await sql<SecretColumns>(
          pool,
          `SELECT ${SECRET_COLUMN_LIST} FROM secrets WHERE kek_id <> $1 LIMIT $2`,
          [kekId, limit],
        );
        return found.rows.map(secretRowOf);
      }),
    rewrap: (address, expected, next) =>
      attempt(async () => {
        const swapped = await sql(
          pool,
          `UPDATE secrets SET kek_id = $6, wrapped_key = $7
            WHERE tenant_id = $1 AND env = $2 AND name = $3 AND version = $4 AND kek_id = $5`,
          [address.tenantId, address.env, address.name, expected.version, expected.kekId, next.kekId, next.wrappedKey],
        );
        return swapped.rowCount === 1;
      }),
    keyIds: () =>
      attempt(async () => {
        const found = await sql<{ kek_id: string }>(pool, 'SELECT DISTINCT kek_id FROM secrets ORDER BY kek_id');
        return found.rows.map((row) => row.kek_id);
      }),
  };
}
