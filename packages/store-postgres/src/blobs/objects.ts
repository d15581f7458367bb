import {
  type BlobFilter,
  type BlobMeta,
  type CommitOutcome,
  normalizeEtag,
  type ObjectRowsPort,
  type ObjectWhere,
  type StoredObject,
  type WriteConditions,
  type WrittenBytes,
} from '@kindgi/bindings';
import type { PostgresPool } from '../pool.js';
import { prepared, sql } from '../tx.js';
import { PendingObjectLost } from './pending.js';
import { addressLockKey, parseMeta, type Queryable, sortKey } from './sql.js';

/** The condition an address must meet, and its parameters, for a statement on `blobs`. */
function whereClause(tenantId: string, where: ObjectWhere): [string, unknown[]] {
  return 'blobId' in where
    ? ['blob_id = $1 AND tenant_id = $2', [where.blobId, tenantId]]
    : ['tenant_id = $1 AND bucket = $2 AND key_sort = $3', [tenantId, where.bucket, sortKey(where.key)]];
}

const COMMIT =
  'SELECT outcome, replaced_object_key FROM kindgi_blob_commit($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)';

/**
 * Makes `meta` the object at its address, in one statement (`kindgi_blob_commit`, migrations 002 and 008):
 * atomic on its own, or inside the caller's transaction (a multipart completion drops its upload in the same
 * one). The address is locked across servers, the precondition checked against what it holds now, the previous
 * row replaced (its object handed to the sweep unless its bytes were in the row) and the new object's intent-log
 * mark removed, so the object becomes visible exactly when its bytes stop being garbage. Bytes `written.inline`
 * are stored in the row itself, committed with it: such an object has no mark and no object-store object.
 * Throws `PendingObjectLost` when the sweep already took the object (the write outlived its grace period).
 */
export async function commitObject(
  db: Queryable,
  meta: BlobMeta,
  written: Pick<WrittenBytes, 'ref' | 'inline'>,
  conditions: WriteConditions = {},
): Promise<CommitOutcome> {
  const { rows } = await db.query<{ outcome: 'lost' | 'refused' | 'stored'; replaced_object_key: string | null }>({
    ...prepared(COMMIT),
    values: [
      written.ref,
      addressLockKey(meta.tenantId, meta.bucket, meta.key),
      meta.blobId,
      meta.tenantId,
      meta.bucket,
      sortKey(meta.key),
      meta.ownerRunId ?? null,
      meta.contentType,
      meta.projectId ?? null,
      JSON.stringify(meta),
      conditions.ifNoneMatch === '*',
      conditions.ifMatch === undefined ? null : normalizeEtag(conditions.ifMatch),
      written.inline === undefined ? null : toBuffer(written.inline),
    ],
  });
  const row = rows[0];
  if (row === undefined || row.outcome === 'lost') throw new PendingObjectLost(written.ref);
  if (row.outcome === 'refused') return { refused: true };
  return row.replaced_object_key === null ? { refused: false } : { refused: false, replaced: row.replaced_object_key };
}

/** Bytes as node-postgres sends a `bytea` parameter: a Buffer over the same memory, not a copy. */
const toBuffer = (bytes: Uint8Array): Buffer =>
  Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** A page of `list`: newest first, below a sequence number, every filter applied in SQL. */
async function listObjects(
  db: Queryable,
  tenantId: string,
  filter: BlobFilter,
  below: number,
  limit: number,
): Promise<{ seq: number; meta: BlobMeta }[]> {
  const clauses = ['tenant_id = $1', 'seq < $2'];
  const params: unknown[] = [tenantId, below];
  const column = (name: string, value: string | undefined) => {
    if (value === undefined) return;
    params.push(value);
    clauses.push(`${name} = $${params.length}`);
  };
  column('owner_run_id', filter.ownerRunId);
  column('content_type', filter.contentType);
  column('project_id', filter.projectId);
  column('bucket', filter.bucket);
  for (const [name, value] of Object.entries(filter.tags ?? {})) {
    params.push(name, value);
    clauses.push(`(meta::json -> 'tags' ->> $${params.length - 1}) = $${params.length}`);
  }
  params.push(limit);
  const sql = `SELECT seq, meta FROM blobs WHERE ${clauses.join(' AND ')} ORDER BY seq DESC LIMIT $${params.length}`;
  const { rows } = await db.query<{ seq: string; meta: string }>(sql, params);
  return rows.map((row) => ({ seq: Number(row.seq), meta: parseMeta(row.meta) }));
}

/** Objects in PostgreSQL: rows naming their backend objects (or keeping small ones' bytes), see `commitObject`. */
export function postgresObjectRows(pool: PostgresPool): ObjectRowsPort {
  return {
    async find(tenantId, where): Promise<StoredObject | undefined> {
      const [clause, params] = whereClause(tenantId, where);
      // A small object's bytes come with its row: a GET of one is this single statement.
      const { rows } = await sql<{ meta: string; object_key: string; data: Buffer | null }>(
        pool,
        `SELECT meta, object_key, data FROM blobs WHERE ${clause}`,
        params,
      );
      const row = rows[0];
      if (row === undefined) return undefined;
      const found = { meta: parseMeta(row.meta), ref: row.object_key };
      return row.data === null ? found : { ...found, bytes: row.data };
    },
    commit: (meta, written, conditions) => commitObject(pool, meta, written, conditions),
    async remove(tenantId, where) {
      const [clause, params] = whereClause(tenantId, where);
      // One statement, so atomic on its own: the row goes and its object-store object is handed to the sweep
      // (an inline object's bytes went with its row).
      const { rows } = await pool.query<{ object_key: string }>(
        `WITH gone AS (DELETE FROM blobs WHERE ${clause} RETURNING object_key, data IS NOT NULL AS inline),
         marked AS (
           INSERT INTO blob_pending_objects (object_key, delete_after) SELECT object_key, now() FROM gone WHERE NOT inline
           ON CONFLICT (object_key) DO UPDATE SET delete_after = LEAST(blob_pending_objects.delete_after, excluded.delete_after))
         SELECT object_key FROM gone`,
        params,
      );
      return rows[0]?.object_key;
    },
    list: (tenantId, filter, below, limit) => listObjects(pool, tenantId, filter, below, limit),
    async scan(tenantId, bucket, from, limit) {
      const op = from === undefined || from.inclusive ? '>=' : '>';
      const { rows } = await pool.query<{ meta: string }>(
        `SELECT meta FROM blobs WHERE tenant_id = $1 AND bucket = $2 AND key_sort ${op} $3
         ORDER BY key_sort LIMIT $4`,
        [tenantId, bucket, sortKey(from?.key ?? ''), limit],
      );
      return rows.map((row) => {
        const meta = parseMeta(row.meta);
        return { key: meta.key, meta };
      });
    },
  };
}
