import {
  type BlobFilter,
  type BlobMeta,
  type CommitOutcome,
  normalizeEtag,
  type ObjectRowsPort,
  type ObjectWhere,
  type WriteConditions,
} from '@kindgi/bindings';
import type { PostgresPool } from '../pool.js';
import { inTransaction } from '../tx.js';
import { PendingObjectLost } from './pending.js';
import { addressLockKey, discardObject, parseMeta, type Queryable, sortKey } from './sql.js';

/** The condition an address must meet, and its parameters, for a statement on `blobs`. */
function whereClause(tenantId: string, where: ObjectWhere): [string, unknown[]] {
  return 'blobId' in where
    ? ['blob_id = $1 AND tenant_id = $2', [where.blobId, tenantId]]
    : ['tenant_id = $1 AND bucket = $2 AND key_sort = $3', [tenantId, where.bucket, sortKey(where.key)]];
}

/**
 * Makes `meta` the object at its address, in one statement (`kindgi_blob_commit`, migration 002): atomic on
 * its own, or inside the caller's transaction (a multipart completion drops its upload in the same one). The
 * address is locked across servers, the precondition checked against what it holds now, the previous row
 * replaced (its object handed to the sweep) and the new object's intent-log mark removed, so the object
 * becomes visible exactly when its bytes stop being garbage. Throws `PendingObjectLost` when the sweep
 * already took the object (the write outlived its grace period).
 */
export async function commitObject(
  db: Queryable,
  meta: BlobMeta,
  objectKey: string,
  conditions: WriteConditions = {},
): Promise<CommitOutcome> {
  const { rows } = await db.query<{ outcome: 'lost' | 'refused' | 'stored'; replaced_object_key: string | null }>(
    'SELECT outcome, replaced_object_key FROM kindgi_blob_commit($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)',
    [
      objectKey,
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
    ],
  );
  const row = rows[0];
  if (row === undefined || row.outcome === 'lost') throw new PendingObjectLost(objectKey);
  if (row.outcome === 'refused') return { refused: true };
  return row.replaced_object_key === null ? { refused: false } : { refused: false, replaced: row.replaced_object_key };
}

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

/** Objects in PostgreSQL: rows naming their backend objects, committed through `commitObject`. */
export function postgresObjectRows(pool: PostgresPool): ObjectRowsPort {
  return {
    async find(tenantId, where) {
      const [clause, params] = whereClause(tenantId, where);
      const { rows } = await pool.query<{ meta: string; object_key: string }>(
        `SELECT meta, object_key FROM blobs WHERE ${clause}`,
        params,
      );
      const row = rows[0];
      return row === undefined ? undefined : { meta: parseMeta(row.meta), ref: row.object_key };
    },
    commit: (meta, written, conditions) => commitObject(pool, meta, written.ref, conditions),
    remove: (tenantId, where) =>
      inTransaction(pool, async (db) => {
        const [clause, params] = whereClause(tenantId, where);
        const { rows } = await db.query<{ object_key: string }>(
          `DELETE FROM blobs WHERE ${clause} RETURNING object_key`,
          params,
        );
        const objectKey = rows[0]?.object_key;
        if (objectKey !== undefined) await discardObject(db, objectKey);
        return objectKey;
      }),
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
