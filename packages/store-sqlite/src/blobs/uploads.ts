import type {
  BlobChecksums,
  ListMultipartUploadsInput,
  StoredPart,
  StoredUpload,
  UploadAnswer,
  UploadRowsPort,
} from '@kindgi/bindings';
import { clampMaxUploads } from '@kindgi/bindings';
import type { KindgiDatabase } from '../database.js';
import { type SqliteObjectRows, sortKey } from './objects.js';
import type { SqliteBlobRefs } from './refs.js';

/** An upload's `info` column: its address and init input, and once completed the answer kept for retries. */
type UploadInfo = StoredUpload & { completed?: UploadAnswer & { at: string } };

/** A stored part row. */
interface PartRow {
  part_number: number;
  etag: string;
  size: number;
  file: string;
  last_modified: string;
  /** JSON of the part's `BlobChecksums`, or null. */
  checksums: string | null;
}

const PART_COLUMNS = 'part_number, etag, size, file, last_modified, checksums';
// Keys compare in JavaScript code-unit order everywhere (listByPrefix does), so SQL orders by the same bytes.
const KEY_SORT = "kindgi_key_sort(json_extract(info, '$.key'))";

const toPart = (row: PartRow, refs: SqliteBlobRefs): StoredPart => ({
  partNumber: row.part_number,
  etag: row.etag,
  size: row.size,
  lastModified: row.last_modified,
  ref: refs.part(row.file),
  ...(row.checksums !== null ? { checksums: JSON.parse(row.checksums) as BlobChecksums } : {}),
});

/** The uploads' rows in SQLite, and `expire` to run synchronously at open, before anything is served. */
export interface SqliteUploadRows {
  port: UploadRowsPort;
  expire(before: Date): { expired: number; discarded: string[] };
}

/**
 * Multipart uploads and their parts in SQLite. A completed upload keeps its row (without parts) as the answer
 * to a retried completion until it expires. Each change is one immediate transaction.
 */
export function sqliteUploadRows(
  db: KindgiDatabase,
  objects: SqliteObjectRows,
  refs: SqliteBlobRefs,
): SqliteUploadRows {
  db.function('kindgi_key_sort', { deterministic: true }, (key) => (typeof key === 'string' ? sortKey(key) : null));
  const uploadById = db.prepare<[string, string], { info: string }>(
    'SELECT info FROM uploads WHERE upload_id = ? AND tenant_id = ?',
  );
  const insertUpload = db.prepare<[string, string, string]>(
    'INSERT INTO uploads (upload_id, tenant_id, info) VALUES (?, ?, ?)',
  );
  // The condition is the partial index's (../database.ts), so the count reads only the tenant's open uploads.
  const openCount = db.prepare<[string, number], { open: number }>(
    `SELECT count(*) AS open FROM (SELECT 1 FROM uploads
     WHERE tenant_id = ? AND json_extract(info, '$.completed') IS NULL LIMIT ?)`,
  );
  const updateUpload = db.prepare<[string, string]>('UPDATE uploads SET info = ? WHERE upload_id = ?');
  const deleteUpload = db.prepare<[string]>('DELETE FROM uploads WHERE upload_id = ?');
  const partsOf = db.prepare<[string], PartRow>(
    `SELECT ${PART_COLUMNS} FROM upload_parts WHERE upload_id = ? ORDER BY part_number`,
  );
  const partByNumber = db.prepare<[string, number], PartRow>(
    `SELECT ${PART_COLUMNS} FROM upload_parts WHERE upload_id = ? AND part_number = ?`,
  );
  const upsertPart = db.prepare(
    `INSERT INTO upload_parts (upload_id, part_number, etag, size, file, last_modified, checksums)
     VALUES (@uploadId, @partNumber, @etag, @size, @file, @lastModified, @checksums)
     ON CONFLICT (upload_id, part_number) DO UPDATE SET etag = excluded.etag, size = excluded.size,
       file = excluded.file, last_modified = excluded.last_modified, checksums = excluded.checksums`,
  );
  const deleteParts = db.prepare<[string]>('DELETE FROM upload_parts WHERE upload_id = ?');
  const openInBucket = db.prepare<
    { tenantId: string; bucket: string; prefix: Buffer; marker: Buffer; uploadMarker: string; limit: number },
    { upload_id: string; info: string }
  >(
    `SELECT upload_id, info FROM uploads
     WHERE tenant_id = @tenantId AND json_extract(info, '$.bucket') = @bucket
       AND json_extract(info, '$.completed') IS NULL
       AND substr(${KEY_SORT}, 1, length(@prefix)) = @prefix
       AND (${KEY_SORT} > @marker OR (${KEY_SORT} = @marker AND upload_id > @uploadMarker))
     ORDER BY ${KEY_SORT}, upload_id LIMIT @limit`,
  );
  const expiredIds = db.prepare<[string], { upload_id: string }>(
    `SELECT upload_id FROM uploads
     WHERE coalesce(json_extract(info, '$.completed.at'), json_extract(info, '$.createdAt')) < ?`,
  );

  const upload = (tenantId: string, uploadId: string): UploadInfo | undefined => {
    const row = uploadById.get(uploadId, tenantId);
    return row === undefined ? undefined : (JSON.parse(row.info) as UploadInfo);
  };
  const isOpen = (tenantId: string, uploadId: string) => {
    const info = upload(tenantId, uploadId);
    return info !== undefined && info.completed === undefined;
  };
  /** Deletes an upload's part rows; returns the refs of their files. */
  const dropParts = (uploadId: string): string[] => {
    const files = partsOf.all(uploadId).map((part) => refs.part(part.file));
    deleteParts.run(uploadId);
    return files;
  };
  const create = db.transaction((tenantId: string, uploadId: string, info: string, maxOpen: number) => {
    if ((openCount.get(tenantId, maxOpen)?.open ?? 0) >= maxOpen) return false;
    insertUpload.run(uploadId, tenantId, info);
    return true;
  });
  const record = db.transaction((tenantId: string, uploadId: string, part: StoredPart) => {
    if (!isOpen(tenantId, uploadId)) return false as const;
    const previous = partByNumber.get(uploadId, part.partNumber);
    const { partNumber, etag, size, lastModified } = part;
    const checksums = part.checksums !== undefined ? JSON.stringify(part.checksums) : null;
    upsertPart.run({ uploadId, partNumber, etag, size, file: refs.partFile(part.ref), lastModified, checksums });
    return { discarded: previous === undefined ? [] : [refs.part(previous.file)] };
  });
  const finish = db.transaction((tenantId: string, uploadId: string, answer: UploadAnswer, inline?: Uint8Array) => {
    const info = upload(tenantId, uploadId);
    if (info === undefined) return { gone: true as const };
    if (info.completed !== undefined) return { completed: { parts: info.completed.parts, meta: info.completed.meta } };
    const replaced = objects.replace(answer.meta, inline);
    const discarded = dropParts(uploadId);
    updateUpload.run(JSON.stringify({ ...info, completed: { ...answer, at: answer.meta.createdAt } }), uploadId);
    return { discarded: replaced === undefined ? discarded : [...discarded, replaced] };
  });
  const drop = db.transaction((uploadId: string) => {
    const discarded = dropParts(uploadId);
    deleteUpload.run(uploadId);
    return discarded;
  });
  const abort = db.transaction((tenantId: string, uploadId: string) =>
    isOpen(tenantId, uploadId) ? { discarded: drop(uploadId) } : false,
  );
  const expire = (before: Date) => {
    const ids = expiredIds.all(before.toISOString()).map((row) => row.upload_id);
    return { expired: ids.length, discarded: ids.flatMap((uploadId) => drop.immediate(uploadId)) };
  };

  const port: UploadRowsPort = {
    createUpload: async (tenantId, uploadId, created, maxOpen) =>
      create.immediate(tenantId, uploadId, JSON.stringify(created), maxOpen),
    async findUpload(tenantId, uploadId) {
      const info = upload(tenantId, uploadId);
      if (info === undefined) return undefined;
      const { completed, ...stored } = info;
      return completed === undefined ? { upload: stored } : { upload: stored, completed };
    },
    parts: async (uploadId) => partsOf.all(uploadId).map((row) => toPart(row, refs)),
    recordPart: async (tenantId, uploadId, part) => record.immediate(tenantId, uploadId, part),
    completeUpload: async (tenantId, uploadId, answer, written) =>
      finish.immediate(tenantId, uploadId, answer, written.inline),
    abortUpload: async (tenantId, uploadId) => abort.immediate(tenantId, uploadId),
    openUploads: async (tenantId, bucket, input) => openUploads(tenantId, bucket, input),
    expireUploads: async (before) => expire(before),
  };

  /** One page (plus one row, to tell truncation) of a bucket's open uploads, in key then uploadId order. */
  function openUploads(tenantId: string, bucket: string, input: ListMultipartUploadsInput) {
    const marker = input.keyMarker ?? '';
    const rows = openInBucket.all({
      tenantId,
      bucket,
      prefix: sortKey(input.prefix ?? ''),
      marker: sortKey(marker),
      // Without an uploadId marker, every upload of the marker key itself is already behind the page.
      uploadMarker: marker !== '' && input.uploadIdMarker ? input.uploadIdMarker : marker === '' ? '' : '\uffff',
      limit: clampMaxUploads(input.maxUploads) + 1,
    });
    return rows.map((row) => ({ uploadId: row.upload_id, upload: JSON.parse(row.info) as StoredUpload }));
  }

  return { port, expire };
}
