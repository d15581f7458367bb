import type {
  BlobChecksums,
  BlobMeta,
  CompletedPart,
  ListMultipartUploadsInput,
  MultipartInitInput,
  MultipartUploadSummary,
} from '@kindgi/bindings';
import { clampMaxUploads } from '@kindgi/bindings';
import type { KindgiDatabase } from './database.js';
import { sortKey } from './rows.js';

/** A stored upload's address and init input; `completed` once it completed (kept for retried completions). */
export interface UploadInfo {
  bucket: string;
  key: string;
  init: MultipartInitInput;
  createdAt: string;
  completed?: { parts: CompletedPart[]; meta: BlobMeta; at: string };
}

/** A stored part row. */
export interface PartRow {
  part_number: number;
  etag: string;
  size: number;
  file: string;
  last_modified: string;
  /** JSON of the part's `BlobChecksums`, or null. */
  checksums: string | null;
}

/** A part as `putPart` records it. */
export interface NewPart {
  partNumber: number;
  etag: string;
  size: number;
  file: string;
  lastModified: string;
  checksums?: BlobChecksums;
}

const PART_COLUMNS = 'part_number, etag, size, file, last_modified, checksums';
// Keys compare in JavaScript code-unit order everywhere (listByPrefix does), so SQL orders by the same bytes.
const KEY_SORT = "kindgi_key_sort(json_extract(info, '$.key'))";

/** The SQL behind multipart uploads and their parts, as prepared statements. */
export class UploadRows {
  private readonly uploadById;
  private readonly insertUpload;
  private readonly updateUpload;
  private readonly deleteUpload;
  private readonly partsOf;
  private readonly partByNumber;
  private readonly upsertPart;
  private readonly deleteParts;
  private readonly partExists;
  private readonly openInBucket;
  private readonly expiredIds;

  constructor(readonly db: KindgiDatabase) {
    db.function('kindgi_key_sort', { deterministic: true }, (key) => (typeof key === 'string' ? sortKey(key) : null));
    this.uploadById = db.prepare<[string, string], { info: string }>(
      'SELECT info FROM uploads WHERE upload_id = ? AND tenant_id = ?',
    );
    this.insertUpload = db.prepare<[string, string, string]>(
      'INSERT INTO uploads (upload_id, tenant_id, info) VALUES (?, ?, ?)',
    );
    this.updateUpload = db.prepare<[string, string]>('UPDATE uploads SET info = ? WHERE upload_id = ?');
    this.deleteUpload = db.prepare<[string]>('DELETE FROM uploads WHERE upload_id = ?');
    this.partsOf = db.prepare<[string], PartRow>(
      `SELECT ${PART_COLUMNS} FROM upload_parts WHERE upload_id = ? ORDER BY part_number`,
    );
    this.partByNumber = db.prepare<[string, number], PartRow>(
      `SELECT ${PART_COLUMNS} FROM upload_parts WHERE upload_id = ? AND part_number = ?`,
    );
    this.upsertPart = db.prepare(
      `INSERT INTO upload_parts (upload_id, part_number, etag, size, file, last_modified, checksums)
       VALUES (@uploadId, @partNumber, @etag, @size, @file, @lastModified, @checksums)
       ON CONFLICT (upload_id, part_number) DO UPDATE SET etag = excluded.etag, size = excluded.size,
         file = excluded.file, last_modified = excluded.last_modified, checksums = excluded.checksums`,
    );
    this.deleteParts = db.prepare<[string]>('DELETE FROM upload_parts WHERE upload_id = ?');
    this.partExists = db.prepare<[string], { one: number }>('SELECT 1 AS one FROM upload_parts WHERE file = ?');
    this.openInBucket = db.prepare<
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
    this.expiredIds = db.prepare<[string], { upload_id: string }>(
      `SELECT upload_id FROM uploads
       WHERE coalesce(json_extract(info, '$.completed.at'), json_extract(info, '$.createdAt')) < ?`,
    );
  }

  upload(tenantId: string, uploadId: string): UploadInfo | undefined {
    const row = this.uploadById.get(uploadId, tenantId);
    return row === undefined ? undefined : (JSON.parse(row.info) as UploadInfo);
  }

  createUpload(tenantId: string, uploadId: string, info: UploadInfo): void {
    this.insertUpload.run(uploadId, tenantId, JSON.stringify(info));
  }

  /** Marks an upload completed (keeping its answer) and deletes its part rows; returns the files to unlink. */
  completeUpload(uploadId: string, info: UploadInfo): string[] {
    const files = this.partsOf.all(uploadId).map((part) => part.file);
    this.deleteParts.run(uploadId);
    this.updateUpload.run(JSON.stringify(info), uploadId);
    return files;
  }

  /** Deletes an upload and its part rows; returns the part files to unlink. */
  dropUpload(uploadId: string): string[] {
    const files = this.partsOf.all(uploadId).map((part) => part.file);
    this.deleteParts.run(uploadId);
    this.deleteUpload.run(uploadId);
    return files;
  }

  parts(uploadId: string): PartRow[] {
    return this.partsOf.all(uploadId);
  }

  /** Records a part, replacing one with the same number; returns the replaced part's file. */
  putPart(uploadId: string, part: NewPart): string | undefined {
    const previous = this.partByNumber.get(uploadId, part.partNumber);
    const checksums = part.checksums !== undefined ? JSON.stringify(part.checksums) : null;
    this.upsertPart.run({ uploadId, ...part, checksums });
    return previous?.file;
  }

  hasPart(file: string): boolean {
    return this.partExists.get(file) !== undefined;
  }

  /** Part rows of every upload, for the sweep of rows whose files are gone. */
  allParts(): { upload_id: string; part_number: number; file: string }[] {
    return this.db
      .prepare<[], { upload_id: string; part_number: number; file: string }>(
        'SELECT upload_id, part_number, file FROM upload_parts',
      )
      .all();
  }

  deletePart(uploadId: string, partNumber: number): void {
    this.db.prepare('DELETE FROM upload_parts WHERE upload_id = ? AND part_number = ?').run(uploadId, partNumber);
  }

  /** One page (plus one row, to tell truncation) of a bucket's open uploads, in key then uploadId order. */
  openUploads(tenantId: string, bucket: string, input: ListMultipartUploadsInput): MultipartUploadSummary[] {
    const marker = input.keyMarker ?? '';
    const rows = this.openInBucket.all({
      tenantId,
      bucket,
      prefix: sortKey(input.prefix ?? ''),
      marker: sortKey(marker),
      // Without an uploadId marker, every upload of the marker key itself is already behind the page.
      uploadMarker: marker !== '' && input.uploadIdMarker ? input.uploadIdMarker : marker === '' ? '' : '\uffff',
      limit: clampMaxUploads(input.maxUploads) + 1,
    });
    return rows.map((row) => {
      const info = JSON.parse(row.info) as UploadInfo;
      const algorithm = info.init.checksumAlgorithm;
      return {
        key: info.key,
        uploadId: row.upload_id,
        initiated: info.createdAt,
        ...(algorithm !== undefined ? { checksumAlgorithm: algorithm } : {}),
      };
    });
  }

  /** Uploads initiated (or, completed ones, completed) before `cutoff` (ISO 8601). */
  expired(cutoff: string): string[] {
    return this.expiredIds.all(cutoff).map((row) => row.upload_id);
  }
}
