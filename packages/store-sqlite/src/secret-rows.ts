import {
  SECRET_AUDIT_COLUMN_LIST,
  SECRET_COLUMN_LIST,
  type SecretAuditColumns,
  type SecretColumns,
  type SecretRow,
  type SecretRowsPort,
  secretAuditOf,
  secretRowOf,
  secretStorageFailure,
} from '@kindgi/bindings';
import { err, ok, type Result } from '@kindgi/protocol';
import type { KindgiDatabase } from './database.js';

function attempt<T>(work: () => T): Result<T, ReturnType<typeof secretStorageFailure>> {
  try {
    return ok(work());
  } catch (cause) {
    return err(secretStorageFailure(cause));
  }
}

/**
 * The secrets rows port on the embedded database (`kindgi.sqlite` in the data directory). Each write is one
 * SQLite transaction, durable on commit (`synchronous = FULL`): a crash leaves the old value or the new one.
 */
export function createSqliteSecretRows(db: KindgiDatabase): SecretRowsPort {
  const select = db.prepare<[string, string, string], SecretColumns>(
    `SELECT ${SECRET_COLUMN_LIST} FROM secrets WHERE tenant_id = ? AND env = ? AND name = ?`,
  );
  const upsert = db.prepare<unknown[], SecretColumns>(
    `INSERT INTO secrets (${SECRET_COLUMN_LIST}) VALUES (?, ?, ?, 1, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (tenant_id, env, name) DO UPDATE SET version = secrets.version + 1, kek_id = excluded.kek_id,
        wrapped_key = excluded.wrapped_key, ciphertext = excluded.ciphertext, updated_at = excluded.updated_at,
        updated_by = excluded.updated_by
      RETURNING ${SECRET_COLUMN_LIST}`,
  );
  const audit = db.prepare(
    'INSERT INTO secret_audit (tenant_id, env, name, action, version, actor, at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const remove = db.prepare<[string, string, string], SecretColumns>(
    `DELETE FROM secrets WHERE tenant_id = ? AND env = ? AND name = ? RETURNING ${SECRET_COLUMN_LIST}`,
  );
  const put = db.transaction((write: Parameters<SecretRowsPort['put']>[0]): SecretRow => {
    const { tenantId, env, name, at, actor } = write;
    const row = upsert.get(
      tenantId,
      env,
      name,
      write.kekId,
      write.wrappedKey,
      write.ciphertext,
      at,
      at,
      actor,
    ) as SecretColumns;
    audit.run(tenantId, env, name, 'set', row.version, actor, at);
    return secretRowOf(row);
  });
  const removeOne = db.transaction((tenantId: string, env: string, name: string, actor: string, at: string) => {
    const row = remove.get(tenantId, env, name);
    if (!row) return null;
    audit.run(tenantId, env, name, 'delete', row.version, actor, at);
    return secretRowOf(row);
  });
  return {
    put: async (write) => attempt(() => put(write)),
    read: async ({ tenantId, env, name }) =>
      attempt(() => {
        const row = select.get(tenantId, env, name);
        return row ? secretRowOf(row) : null;
      }),
    readMany: async (tenantId, env, names) =>
      attempt(() =>
        names.flatMap((name) => {
          const row = select.get(tenantId, env, name);
          return row ? [secretRowOf(row)] : [];
        }),
      ),
    list: async (tenantId, { env, after, limit }) =>
      attempt(() =>
        db
          .prepare<unknown[], SecretColumns>(
            `SELECT ${SECRET_COLUMN_LIST} FROM secrets WHERE tenant_id = ? AND (? IS NULL OR env = ?)
              AND (? IS NULL OR env > ? OR (env = ? AND name > ?)) ORDER BY env, name LIMIT ?`,
          )
          .all(
            tenantId,
            env ?? null,
            env ?? null,
            after?.env ?? null,
            after?.env ?? null,
            after?.env ?? null,
            after?.name ?? null,
            limit,
          )
          .map(secretRowOf),
      ),
    remove: async ({ tenantId, env, name }, actor, at) => attempt(() => removeOne(tenantId, env, name, actor, at)),
    audit: async (tenantId, { afterSeq, limit }) =>
      attempt(() =>
        db
          .prepare<unknown[], SecretAuditColumns>(
            `SELECT ${SECRET_AUDIT_COLUMN_LIST} FROM secret_audit WHERE tenant_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
          )
          .all(tenantId, afterSeq ?? 0, limit)
          .map(secretAuditOf),
      ),
    wrappedByOthers: async (kekId, limit) =>
      attempt(() =>
        db
          .prepare<unknown[], SecretColumns>(`SELECT ${SECRET_COLUMN_LIST} FROM secrets WHERE kek_id <> ? LIMIT ?`)
          .all(kekId, limit)
          .map(secretRowOf),
      ),
    rewrap: async (address, expected, next) =>
      attempt(
        () =>
          db
            .prepare(
              'UPDATE secrets SET kek_id = ?, wrapped_key = ? WHERE tenant_id = ? AND env = ? AND name = ? AND version = ? AND kek_id = ?',
            )
            .run(
              next.kekId,
              next.wrappedKey,
              address.tenantId,
              address.env,
              address.name,
              expected.version,
              expected.kekId,
            ).changes === 1,
      ),
    keyIds: async () =>
      attempt(() =>
        db
          .prepare<[], { kek_id: string }>('SELECT DISTINCT kek_id FROM secrets ORDER BY kek_id')
          .all()
          .map((row) => row.kek_id),
      ),
  };
}
