import { type SecretAuditRow, type SecretRow, type SecretRowsPort, secretError } from '@kindgi/bindings';
import { err, messageOf, ok, type Result } from '@kindgi/protocol';
import type { KindgiDatabase } from './database.js';

interface Row {
  tenant_id: string;
  env: string;
  name: string;
  version: number;
  kek_id: string;
  wrapped_key: Buffer;
  ciphertext: Buffer;
  created_at: string;
  updated_at: string;
  updated_by: string;
}

interface AuditRow {
  seq: number;
  tenant_id: string;
  env: string;
  name: string;
  action: 'set' | 'delete';
  version: number;
  actor: string;
  at: string;
}

const COLUMNS = 'tenant_id, env, name, version, kek_id, wrapped_key, ciphertext, created_at, updated_at, updated_by';

const toRow = (row: Row): SecretRow => ({
  tenantId: row.tenant_id,
  env: row.env,
  name: row.name,
  version: row.version,
  kekId: row.kek_id,
  wrappedKey: row.wrapped_key,
  ciphertext: row.ciphertext,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  updatedBy: row.updated_by,
});

const toAudit = (row: AuditRow): SecretAuditRow => ({
  seq: row.seq,
  tenantId: row.tenant_id,
  env: row.env,
  name: row.name,
  action: row.action,
  version: row.version,
  actor: row.actor,
  at: row.at,
});

function attempt<T>(work: () => T): Result<T, ReturnType<typeof secretError>> {
  try {
    return ok(work());
  } catch (cause) {
    return err(secretError('storage-unavailable', `The secret store is unavailable: ${messageOf(cause)}`));
  }
}

/**
 * The secrets rows port on the embedded database (`kindgi.sqlite` in the data directory). Each write is one
 * SQLite transaction, durable on commit (`synchronous = FULL`): a crash leaves the old value or the new one.
 */
export function createSqliteSecretRows(db: KindgiDatabase): SecretRowsPort {
  const select = db.prepare<[string, string, string], Row>(
    `SELECT ${COLUMNS} FROM secrets WHERE tenant_id = ? AND env = ? AND name = ?`,
  );
  const upsert = db.prepare<unknown[], Row>(
    `INSERT INTO secrets (${COLUMNS}) VALUES (?, ?, ?, 1, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (tenant_id, env, name) DO UPDATE SET version = secrets.version + 1, kek_id = excluded.kek_id,
        wrapped_key = excluded.wrapped_key, ciphertext = excluded.ciphertext, updated_at = excluded.updated_at,
        updated_by = excluded.updated_by
      RETURNING ${COLUMNS}`,
  );
  const audit = db.prepare(
    'INSERT INTO secret_audit (tenant_id, env, name, action, version, actor, at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const remove = db.prepare<[string, string, string], Row>(
    `DELETE FROM secrets WHERE tenant_id = ? AND env = ? AND name = ? RETURNING ${COLUMNS}`,
  );
  const put = db.transaction((write: Parameters<SecretRowsPort['put']>[0]): SecretRow => {
    const { tenantId, env, name, at, actor } = write;
    const row = upsert.get(tenantId, env, name, write.kekId, write.wrappedKey, write.ciphertext, at, at, actor) as Row;
    audit.run(tenantId, env, name, 'set', row.version, actor, at);
    return toRow(row);
  });
  const removeOne = db.transaction((tenantId: string, env: string, name: string, actor: string, at: string) => {
    const row = remove.get(tenantId, env, name);
    if (!row) return null;
    audit.run(tenantId, env, name, 'delete', row.version, actor, at);
    return toRow(row);
  });
  return {
    put: async (write) => attempt(() => put(write)),
    read: async ({ tenantId, env, name }) =>
      attempt(() => {
        const row = select.get(tenantId, env, name);
        return row ? toRow(row) : null;
      }),
    readMany: async (tenantId, env, names) =>
      attempt(() =>
        names.flatMap((name) => {
          const row = select.get(tenantId, env, name);
          return row ? [toRow(row)] : [];
        }),
      ),
    list: async (tenantId, { env, after, limit }) =>
      attempt(() =>
        db
          .prepare<unknown[], Row>(
            `SELECT ${COLUMNS} FROM secrets WHERE tenant_id = ? AND (? IS NULL OR env = ?)
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
          .map(toRow),
      ),
    remove: async ({ tenantId, env, name }, actor, at) => attempt(() => removeOne(tenantId, env, name, actor, at)),
    audit: async (tenantId, { afterSeq, limit }) =>
      attempt(() =>
        db
          .prepare<unknown[], AuditRow>(
            'SELECT seq, tenant_id, env, name, action, version, actor, at FROM secret_audit WHERE tenant_id = ? AND seq > ? ORDER BY seq LIMIT ?',
          )
          .all(tenantId, afterSeq ?? 0, limit)
          .map(toAudit),
      ),
    wrappedByOthers: async (kekId, limit) =>
      attempt(() =>
        db
          .prepare<unknown[], Row>(`SELECT ${COLUMNS} FROM secrets WHERE kek_id <> ? LIMIT ?`)
          .all(kekId, limit)
          .map(toRow),
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
