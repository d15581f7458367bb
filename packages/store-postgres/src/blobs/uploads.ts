import type { BlobMeta, ListMultipartUploadsInput, MultipartUploadSummary } from '@kindgi/bindings';
import { clampMaxUploads, pageUploads } from '@kindgi/bindings';
import type { PostgresPool } from '../pool.js';
import { inTransaction } from '../tx.js';
import { type CommitOutcome, commitObject, type Precondition } from './objects.js';
import { claimPending } from './pending.js';
import {
  type CompletedUpload,
  discardObject,
  type PartRecord,
  type Queryable,
  sortKey,
  type UploadInfo,
} from './sql.js';

interface PartRow {
  part_number: number;
  etag: string;
  size: string;
  object_key: string;
  last_modified: string;
  checksums: string | null;
}

const toPart = (row: PartRow): PartRecord => ({
  partNumber: row.part_number,
  etag: row.etag,
  size: Number(row.size),
  objectKey: row.object_key,
  lastModified: row.last_modified,
  ...(row.checksums !== null ? { checksums: JSON.parse(row.checksums) as PartRecord['checksums'] } : {}),
});

/** Records a new multipart upload. */
export async function createUpload(db: Queryable, tenantId: string, uploadId: string, info: UploadInfo): Promise<void> {
  await db.query(
    `INSERT INTO blob_uploads (upload_id, tenant_id, bucket, key_sort, info, created_at)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [uploadId, tenantId, info.bucket, sortKey(info.key), JSON.stringify(info), info.createdAt],
  );
}

/** An upload of this tenant (with its answer when it completed), or `undefined` (never started, aborted, expired). */
export async function findUpload(
  db: Queryable,
  tenantId: string,
  uploadId: string,
): Promise<{ info: UploadInfo; completed?: CompletedUpload } | undefined> {
  const { rows } = await db.query<{ info: string; completed: string | null }>(
    'SELECT info, completed FROM blob_uploads WHERE upload_id = $1 AND tenant_id = $2',
    [uploadId, tenantId],
  );
  const row = rows[0];
  if (row === undefined) return undefined;
  const info = JSON.parse(row.info) as UploadInfo;
  return row.completed === null ? { info } : { info, completed: JSON.parse(row.completed) as CompletedUpload };
}

/** An upload's parts, ascending. */
export async function listUploadParts(db: Queryable, uploadId: string): Promise<PartRecord[]> {
  const { rows } = await db.query<PartRow>(
    `SELECT part_number, etag, size, object_key, last_modified, checksums FROM blob_upload_parts
     WHERE upload_id = $1 ORDER BY part_number`,
    [uploadId],
  );
  return rows.map(toPart);
}

/** Locks an upload still in progress for the rest of the transaction; false when it is not (any more). */
async function lockOpenUpload(db: Queryable, tenantId: string, uploadId: string): Promise<boolean> {
  const { rows } = await db.query(
    'SELECT 1 FROM blob_uploads WHERE upload_id = $1 AND tenant_id = $2 AND completed IS NULL FOR UPDATE',
    [uploadId, tenantId],
  );
  return rows.length > 0;
}

/**
 * Records a stored part, replacing (and discarding) one with the same number. The upload row is locked
 * first, so a part racing a completion or an abort either lands before it or finds the upload gone
 * (`false`), never attaches to a finished upload. Returns the discarded objects, for deleting at once.
 */
export async function recordPart(
  pool: PostgresPool,
  tenantId: string,
  uploadId: string,
  part: PartRecord,
): Promise<{ discarded: string[] } | false> {
  return inTransaction(pool, async (db) => {
    if (!(await lockOpenUpload(db, tenantId, uploadId))) return false;
    await claimPending(db, part.objectKey);
    const previous = await db.query<{ object_key: string }>(
      'SELECT object_key FROM blob_upload_parts WHERE upload_id = $1 AND part_number = $2',
      [uploadId, part.partNumber],
    );
    await db.query(
      `INSERT INTO blob_upload_parts (upload_id, part_number, etag, size, object_key, last_modified, checksums)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (upload_id, part_number) DO UPDATE SET
         etag = excluded.etag, size = excluded.size, object_key = excluded.object_key,
         last_modified = excluded.last_modified, checksums = excluded.checksums`,
      [
        uploadId,
        part.partNumber,
        part.etag,
        part.size,
        part.objectKey,
        part.lastModified,
        part.checksums === undefined ? null : JSON.stringify(part.checksums),
      ],
    );
    const replaced = previous.rows[0]?.object_key;
    if (replaced === undefined) return { discarded: [] };
    await discardObject(db, replaced);
    return { discarded: [replaced] };
  });
}

/** Deletes an upload's parts, handing their bytes to the sweep; returns their object keys. */
async function dropParts(db: Queryable, uploadId: string): Promise<string[]> {
  const { rows } = await db.query<{ object_key: string }>(
    'DELETE FROM blob_upload_parts WHERE upload_id = $1 RETURNING object_key',
    [uploadId],
  );
  for (const row of rows) await discardObject(db, row.object_key);
  return rows.map((row) => row.object_key);
}

/** Aborts an upload in progress, returning the parts' object keys; `false` when it is not in progress. */
export async function abortUpload(
  pool: PostgresPool,
  tenantId: string,
  uploadId: string,
): Promise<{ discarded: string[] } | false> {
  return inTransaction(pool, async (db) => {
    if (!(await lockOpenUpload(db, tenantId, uploadId))) return false;
    const discarded = await dropParts(db, uploadId);
    await db.query('DELETE FROM blob_uploads WHERE upload_id = $1', [uploadId]);
    return { discarded };
  });
}

/**
 * Completes an upload in one transaction: the upload must still be in progress (a concurrent abort wins:
 * `gone`; a concurrent completion wins: `completed`, its answer), the assembled object replaces the
 * address, the parts are discarded, and the answer is kept for retries.
 */
export async function completeUpload(
  pool: PostgresPool,
  uploadId: string,
  completion: CompletedUpload,
  objectKey: string,
  precondition: Precondition = {},
): Promise<(CommitOutcome & { discarded: string[] }) | { gone: true } | { completed: CompletedUpload }> {
  const meta: BlobMeta = completion.meta;
  return inTransaction(pool, async (db) => {
    const { rows } = await db.query<{ completed: string | null }>(
      'SELECT completed FROM blob_uploads WHERE upload_id = $1 AND tenant_id = $2 FOR UPDATE',
      [uploadId, meta.tenantId],
    );
    const row = rows[0];
    if (row === undefined) return { gone: true as const };
    if (row.completed !== null) return { completed: JSON.parse(row.completed) as CompletedUpload };
    const outcome = await commitObject(db, meta, objectKey, precondition);
    if (outcome.refused) return { ...outcome, discarded: [] };
    const discarded = await dropParts(db, uploadId);
    await db.query('UPDATE blob_uploads SET completed = $2, completed_at = now() WHERE upload_id = $1', [
      uploadId,
      JSON.stringify(completion),
    ]);
    if (outcome.replacedObjectKey !== undefined) discarded.push(outcome.replacedObjectKey);
    return { ...outcome, discarded };
  });
}

/** A page of uploads in progress in one bucket: key order (code units), then uploadId, after the markers. */
export async function listUploads(
  db: Queryable,
  tenantId: string,
  bucket: string,
  input: ListMultipartUploadsInput,
): Promise<{ uploads: MultipartUploadSummary[]; isTruncated: boolean }> {
  const clauses = ['tenant_id = $1', 'bucket = $2', 'completed IS NULL'];
  const params: unknown[] = [tenantId, bucket];
  const prefix = sortKey(input.prefix ?? '');
  if (prefix.length > 0) {
    params.push(prefix);
    // A code-unit prefix of a key is a byte prefix of its UTF-16BE form.
    clauses.push(`substring(key_sort from 1 for ${prefix.length}) = $${params.length}`);
  }
  if (input.keyMarker !== undefined && input.keyMarker !== '') {
    params.push(sortKey(input.keyMarker), input.uploadIdMarker ?? '');
    const [k, u] = [params.length - 1, params.length];
    clauses.push(`(key_sort > $${k} OR (key_sort = $${k} AND $${u} <> '' AND upload_id COLLATE "C" > $${u}))`);
  }
  params.push(clampMaxUploads(input.maxUploads) + 1);
  const { rows } = await db.query<{ info: string; upload_id: string }>(
    `SELECT upload_id, info FROM blob_uploads WHERE ${clauses.join(' AND ')}
     ORDER BY key_sort, upload_id COLLATE "C" LIMIT $${params.length}`,
    params,
  );
  const summaries = rows.map((row) => {
    const info = JSON.parse(row.info) as UploadInfo;
    const algorithm = info.init.checksumAlgorithm;
    return {
      key: info.key,
      uploadId: row.upload_id,
      initiated: info.createdAt,
      ...(algorithm !== undefined ? { checksumAlgorithm: algorithm } : {}),
    };
  });
  // The shared rules page the rows read (at most one more than a page), so every binding agrees.
  return pageUploads(summaries, input);
}

/**
 * Expires, across tenants, uploads in progress initiated before `before` (their parts discarded) and the
 * answers of uploads completed before it. Returns how many, and the discarded objects.
 */
export async function expireUploads(
  pool: PostgresPool,
  before: Date,
): Promise<{ expired: number; discarded: string[] }> {
  return inTransaction(pool, async (db) => {
    const { rows } = await db.query<{ upload_id: string }>(
      `SELECT upload_id FROM blob_uploads WHERE COALESCE(completed_at, created_at) < $1 FOR UPDATE SKIP LOCKED`,
      [before.toISOString()],
    );
    const discarded: string[] = [];
    for (const row of rows) {
      discarded.push(...(await dropParts(db, row.upload_id)));
      await db.query('DELETE FROM blob_uploads WHERE upload_id = $1', [row.upload_id]);
    }
    return { expired: rows.length, discarded };
  });
}
