import type {
  BlobChecksums,
  ListMultipartUploadsInput,
  StoredPart,
  StoredUpload,
  UploadAnswer,
  UploadRowsPort,
} from '@kindgi/bindings';
import { clampMaxUploads } from '@kindgi/bindings';
import type { PostgresPool } from '../pool.js';
import { inTransaction } from '../tx.js';
import { commitObject } from './objects.js';
import { claimPending } from './pending.js';
import { discardObject, type Queryable, sortKey } from './sql.js';

interface PartRow {
  part_number: number;
  etag: string;
  size: string;
  object_key: string;
  last_modified: string;
  checksums: string | null;
}

const toPart = (row: PartRow): StoredPart => ({
  partNumber: row.part_number,
  etag: row.etag,
  size: Number(row.size),
  ref: row.object_key,
  lastModified: row.last_modified,
  ...(row.checksums !== null ? { checksums: JSON.parse(row.checksums) as BlobChecksums } : {}),
});

/** Locks an upload still in progress for the rest of the transaction; false when it is not (any more). */
async function lockOpenUpload(db: Queryable, tenantId: string, uploadId: string): Promise<boolean> {
  const { rows } = await db.query(
    'SELECT 1 FROM blob_uploads WHERE upload_id = $1 AND tenant_id = $2 AND completed IS NULL FOR UPDATE',
    [uploadId, tenantId],
  );
  return rows.length > 0;
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

/** The open uploads' page query: key order (code units), then uploadId, after the markers. */
function openUploadsQuery(tenantId: string, bucket: string, input: ListMultipartUploadsInput): [string, unknown[]] {
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
  const sql = `SELECT upload_id, info FROM blob_uploads WHERE ${clauses.join(' AND ')}
     ORDER BY key_sort, upload_id COLLATE "C" LIMIT $${params.length}`;
  return [sql, params];
}

/**
 * Multipart uploads in PostgreSQL. Every change locks its upload row first, so a part racing a completion or
 * an abort either lands before it or finds the upload gone, and two completions resolve one way.
 */
export function postgresUploadRows(pool: PostgresPool): UploadRowsPort {
  return {
    createUpload: (tenantId, uploadId, info, maxOpen) =>
      inTransaction(pool, async (db) => {
        // One creation per tenant at a time across servers, so a count below the cap stays true until the insert.
        await db.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`kindgi-uploads:${tenantId}`]);
        const { rows } = await db.query<{ open: string }>(
          `SELECT count(*) AS open FROM (SELECT 1 FROM blob_uploads
           WHERE tenant_id = $1 AND completed IS NULL LIMIT $2) AS capped`,
          [tenantId, maxOpen],
        );
        if (Number(rows[0]?.open ?? 0) >= maxOpen) return false;
        await db.query(
          `INSERT INTO blob_uploads (upload_id, tenant_id, bucket, key_sort, info, created_at)
           VALUES ($1, $2, $3, $4, $5, $6)`,
          [uploadId, tenantId, info.bucket, sortKey(info.key), JSON.stringify(info), info.createdAt],
        );
        return true;
      }),

    async findUpload(tenantId, uploadId) {
      const { rows } = await pool.query<{ info: string; completed: string | null }>(
        'SELECT info, completed FROM blob_uploads WHERE upload_id = $1 AND tenant_id = $2',
        [uploadId, tenantId],
      );
      const row = rows[0];
      if (row === undefined) return undefined;
      const upload = JSON.parse(row.info) as StoredUpload;
      return row.completed === null ? { upload } : { upload, completed: JSON.parse(row.completed) as UploadAnswer };
    },

    async parts(uploadId) {
      const { rows } = await pool.query<PartRow>(
        `SELECT part_number, etag, size, object_key, last_modified, checksums FROM blob_upload_parts
         WHERE upload_id = $1 ORDER BY part_number`,
        [uploadId],
      );
      return rows.map(toPart);
    },

    recordPart: (tenantId, uploadId, part) =>
      inTransaction(pool, async (db) => {
        if (!(await lockOpenUpload(db, tenantId, uploadId))) return false;
        await claimPending(db, part.ref);
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
            part.ref,
            part.lastModified,
            part.checksums === undefined ? null : JSON.stringify(part.checksums),
          ],
        );
        const replaced = previous.rows[0]?.object_key;
        if (replaced !== undefined) await discardObject(db, replaced);
        return { discarded: replaced === undefined ? [] : [replaced] };
      }),

    completeUpload: (tenantId, uploadId, answer, written) =>
      inTransaction(pool, async (db) => {
        const { rows } = await db.query<{ completed: string | null }>(
          'SELECT completed FROM blob_uploads WHERE upload_id = $1 AND tenant_id = $2 FOR UPDATE',
          [uploadId, tenantId],
        );
        const row = rows[0];
        if (row === undefined) return { gone: true as const };
        if (row.completed !== null) return { completed: JSON.parse(row.completed) as UploadAnswer };
        // Without conditions a commit is never refused.
        const outcome = await commitObject(db, answer.meta, written);
        const discarded = await dropParts(db, uploadId);
        await db.query('UPDATE blob_uploads SET completed = $2, completed_at = now() WHERE upload_id = $1', [
          uploadId,
          JSON.stringify(answer),
        ]);
        if (!outcome.refused && outcome.replaced !== undefined) discarded.push(outcome.replaced);
        return { discarded };
      }),

    abortUpload: (tenantId, uploadId) =>
      inTransaction(pool, async (db) => {
        if (!(await lockOpenUpload(db, tenantId, uploadId))) return false;
        const discarded = await dropParts(db, uploadId);
        await db.query('DELETE FROM blob_uploads WHERE upload_id = $1', [uploadId]);
        return { discarded };
      }),

    async openUploads(tenantId, bucket, input) {
      const [sql, params] = openUploadsQuery(tenantId, bucket, input);
      const { rows } = await pool.query<{ info: string; upload_id: string }>(sql, params);
      return rows.map((row) => ({ uploadId: row.upload_id, upload: JSON.parse(row.info) as StoredUpload }));
    },

    expireUploads: (before) =>
      inTransaction(pool, async (db) => {
        const { rows } = await db.query<{ upload_id: string }>(
          'SELECT upload_id FROM blob_uploads WHERE COALESCE(completed_at, created_at) < $1 FOR UPDATE SKIP LOCKED',
          [before.toISOString()],
        );
        const discarded: string[] = [];
        for (const row of rows) {
          discarded.push(...(await dropParts(db, row.upload_id)));
          await db.query('DELETE FROM blob_uploads WHERE upload_id = $1', [row.upload_id]);
        }
        return { expired: rows.length, discarded };
      }),
  };
}
