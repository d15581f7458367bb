import type { BlobFilter, BlobMeta } from '@kindgi/bindings';
import type { PostgresPool } from '../pool.js';
import { inTransaction } from '../tx.js';
import { PendingObjectLost } from './pending.js';
import { addressLockKey, discardObject, parseMeta, type Queryable, sortKey } from './sql.js';

/** What a commit decided: refused by the caller's precondition, or stored (naming the object it replaced). */
export type CommitOutcome = { refused: true } | { refused: false; replacedObjectKey?: string };

/**
 * What the address must hold for a write to replace it, checked under the address lock: nothing
 * (`ifNoneMatch`), or an object with this ETag (`ifMatch`, unquoted lower case).
 */
export interface Precondition {
  ifNoneMatch?: boolean;
  ifMatch?: string;
}

const SELECT_AT = 'SELECT meta, object_key FROM blobs WHERE tenant_id = $1 AND bucket = $2 AND key_sort = $3';

/** The object at an address with its backend object key. */
export async function objectAt(
  db: Queryable,
  tenantId: string,
  bucket: string,
  key: string,
): Promise<{ meta: BlobMeta; objectKey: string } | undefined> {
  const { rows } = await db.query<{ meta: string; object_key: string }>(SELECT_AT, [tenantId, bucket, sortKey(key)]);
  const row = rows[0];
  return row === undefined ? undefined : { meta: parseMeta(row.meta), objectKey: row.object_key };
}

/** An object by blobId with its backend object key. */
export async function objectById(
  db: Queryable,
  tenantId: string,
  blobId: string,
): Promise<{ meta: BlobMeta; objectKey: string } | undefined> {
  const { rows } = await db.query<{ meta: string; object_key: string }>(
    'SELECT meta, object_key FROM blobs WHERE blob_id = $1 AND tenant_id = $2',
    [blobId, tenantId],
  );
  const row = rows[0];
  return row === undefined ? undefined : { meta: parseMeta(row.meta), objectKey: row.object_key };
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
  precondition: Precondition = {},
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
      precondition.ifNoneMatch === true,
      precondition.ifMatch ?? null,
    ],
  );
  const row = rows[0];
  if (row === undefined || row.outcome === 'lost') throw new PendingObjectLost(objectKey);
  if (row.outcome === 'refused') return { refused: true };
  return row.replaced_object_key === null
    ? { refused: false }
    : { refused: false, replacedObjectKey: row.replaced_object_key };
}

/** Deletes an object's row and hands its bytes to the sweep; false when there was none. */
export async function removeObject(
  pool: PostgresPool,
  tenantId: string,
  where: { blobId: string } | { bucket: string; key: string },
): Promise<string | undefined> {
  return inTransaction(pool, async (db) => {
    const { rows } =
      'blobId' in where
        ? await db.query<{ object_key: string }>(
            'DELETE FROM blobs WHERE blob_id = $1 AND tenant_id = $2 RETURNING object_key',
            [where.blobId, tenantId],
          )
        : await db.query<{ object_key: string }>(
            'DELETE FROM blobs WHERE tenant_id = $1 AND bucket = $2 AND key_sort = $3 RETURNING object_key',
            [tenantId, where.bucket, sortKey(where.key)],
          );
    const objectKey = rows[0]?.object_key;
    if (objectKey !== undefined) await discardObject(db, objectKey);
    return objectKey;
  });
}

/** A page of `list`: newest first, below a sequence number, every filter applied in SQL. */
export async function listObjects(
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
