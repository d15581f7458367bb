import type { BlobFilter, BlobMeta, MultipartInitInput, ScanBound } from '@kindgi/bindings';
import type { KindgiDatabase } from './database.js';

/** A key as SQLite sorts it: UTF-16BE bytes, whose memcmp order is JavaScript's code-unit order. */
export function sortKey(key: string): Buffer {
  return Buffer.from(key, 'utf16le').swap16();
}

/** A stored upload's address and init input. */
export interface UploadInfo {
  bucket: string;
  key: string;
  init: MultipartInitInput;
  createdAt: string;
}

/** A stored part row. */
export interface PartRow {
  part_number: number;
  etag: string;
  size: number;
  file: string;
  last_modified: string;
}

/** The SQL behind blob storage, as prepared statements. */
export class BlobRows {
  private readonly byId;
  private readonly byAddress;
  private readonly afterKey;
  private readonly atKey;
  private readonly insert;
  private readonly deleteById;
  private readonly blobExists;
  private readonly uploadById;
  private readonly insertUpload;
  private readonly deleteUpload;
  private readonly partsOf;
  private readonly partByNumber;
  private readonly upsertPart;
  private readonly deleteParts;
  private readonly partExists;

  constructor(readonly db: KindgiDatabase) {
    this.byId = db.prepare<[string, string], { meta: string }>(
      'SELECT meta FROM blobs WHERE blob_id = ? AND tenant_id = ?',
    );
    this.byAddress = db.prepare<[string, string, Buffer], { meta: string }>(
      'SELECT meta FROM blobs WHERE tenant_id = ? AND bucket = ? AND key_sort = ?',
    );
    this.afterKey = db.prepare<[string, string, Buffer], { meta: string }>(
      'SELECT meta FROM blobs WHERE tenant_id = ? AND bucket = ? AND key_sort > ? ORDER BY key_sort LIMIT 1',
    );
    this.atKey = db.prepare<[string, string, Buffer], { meta: string }>(
      'SELECT meta FROM blobs WHERE tenant_id = ? AND bucket = ? AND key_sort >= ? ORDER BY key_sort LIMIT 1',
    );
    this.insert = db.prepare(
      `INSERT INTO blobs (blob_id, tenant_id, bucket, key_sort, owner_run_id, content_type, project_id, meta)
       VALUES (@blobId, @tenantId, @bucket, @keySort, @ownerRunId, @contentType, @projectId, @meta)`,
    );
    this.deleteById = db.prepare<[string, string]>('DELETE FROM blobs WHERE blob_id = ? AND tenant_id = ?');
    this.blobExists = db.prepare<[string], { one: number }>('SELECT 1 AS one FROM blobs WHERE blob_id = ?');
    this.uploadById = db.prepare<[string, string], { info: string }>(
      'SELECT info FROM uploads WHERE upload_id = ? AND tenant_id = ?',
    );
    this.insertUpload = db.prepare<[string, string, string]>(
      'INSERT INTO uploads (upload_id, tenant_id, info) VALUES (?, ?, ?)',
    );
    this.deleteUpload = db.prepare<[string]>('DELETE FROM uploads WHERE upload_id = ?');
    this.partsOf = db.prepare<[string], PartRow>(
      'SELECT part_number, etag, size, file, last_modified FROM upload_parts WHERE upload_id = ? ORDER BY part_number',
    );
    this.partByNumber = db.prepare<[string, number], PartRow>(
      'SELECT part_number, etag, size, file, last_modified FROM upload_parts WHERE upload_id = ? AND part_number = ?',
    );
    this.upsertPart = db.prepare(
      `INSERT INTO upload_parts (upload_id, part_number, etag, size, file, last_modified)
       VALUES (@uploadId, @partNumber, @etag, @size, @file, @lastModified)
       ON CONFLICT (upload_id, part_number) DO UPDATE SET
         etag = excluded.etag, size = excluded.size, file = excluded.file, last_modified = excluded.last_modified`,
    );
    this.deleteParts = db.prepare<[string]>('DELETE FROM upload_parts WHERE upload_id = ?');
    this.partExists = db.prepare<[string], { one: number }>('SELECT 1 AS one FROM upload_parts WHERE file = ?');
  }

  get(tenantId: string, blobId: string): BlobMeta | undefined {
    const row = this.byId.get(blobId, tenantId);
    return row === undefined ? undefined : (JSON.parse(row.meta) as BlobMeta);
  }

  at(tenantId: string, bucket: string, key: string): BlobMeta | undefined {
    const row = this.byAddress.get(tenantId, bucket, sortKey(key));
    return row === undefined ? undefined : (JSON.parse(row.meta) as BlobMeta);
  }

  /** The first object of a bucket at or after a bound, in key order: one indexed seek. */
  first(tenantId: string, bucket: string, bound: ScanBound | undefined): { key: string; meta: BlobMeta } | undefined {
    const statement = bound === undefined || bound.inclusive ? this.atKey : this.afterKey;
    const row = statement.get(tenantId, bucket, sortKey(bound?.key ?? ''));
    if (row === undefined) return undefined;
    const meta = JSON.parse(row.meta) as BlobMeta;
    return { key: meta.key, meta };
  }

  /** Inserts `meta` as the object at its address, removing the previous one; returns the replaced blobId. */
  replace(meta: BlobMeta): string | undefined {
    const previous = this.at(meta.tenantId, meta.bucket, meta.key);
    if (previous !== undefined) this.deleteById.run(previous.blobId, meta.tenantId);
    this.insert.run({
      blobId: meta.blobId,
      tenantId: meta.tenantId,
      bucket: meta.bucket,
      keySort: sortKey(meta.key),
      ownerRunId: meta.ownerRunId ?? null,
      contentType: meta.contentType,
      projectId: meta.projectId ?? null,
      meta: JSON.stringify(meta),
    });
    return previous?.blobId;
  }

  remove(tenantId: string, blobId: string): boolean {
    return this.deleteById.run(blobId, tenantId).changes > 0;
  }

  hasBlob(blobId: string): boolean {
    return this.blobExists.get(blobId) !== undefined;
  }

  /** Every blobId, for the sweep of rows whose files are gone. */
  allBlobIds(): string[] {
    return this.db
      .prepare<[], { blob_id: string }>('SELECT blob_id FROM blobs')
      .all()
      .map((row) => row.blob_id);
  }

  /** A page of `list`: newest first, below a sequence number, every filter applied in SQL. */
  list(tenantId: string, filter: BlobFilter, below: number, limit: number): { seq: number; meta: BlobMeta }[] {
    const clauses = ['tenant_id = ?', 'seq < ?'];
    const params: unknown[] = [tenantId, below];
    const column = (name: string, value: string | undefined) => {
      if (value === undefined) return;
      clauses.push(`${name} = ?`);
      params.push(value);
    };
    column('owner_run_id', filter.ownerRunId);
    column('content_type', filter.contentType);
    column('project_id', filter.projectId);
    column('bucket', filter.bucket);
    for (const [name, value] of Object.entries(filter.tags ?? {})) {
      clauses.push(
        "EXISTS (SELECT 1 FROM json_each(blobs.meta, '$.tags') WHERE json_each.key = ? AND json_each.value = ?)",
      );
      params.push(name, value);
    }
    params.push(limit);
    const sql = `SELECT seq, meta FROM blobs WHERE ${clauses.join(' AND ')} ORDER BY seq DESC LIMIT ?`;
    return this.db
      .prepare<unknown[], { seq: number; meta: string }>(sql)
      .all(...params)
      .map((row) => ({ seq: row.seq, meta: JSON.parse(row.meta) as BlobMeta }));
  }

  upload(tenantId: string, uploadId: string): UploadInfo | undefined {
    const row = this.uploadById.get(uploadId, tenantId);
    return row === undefined ? undefined : (JSON.parse(row.info) as UploadInfo);
  }

  createUpload(tenantId: string, uploadId: string, info: UploadInfo): void {
    this.insertUpload.run(uploadId, tenantId, JSON.stringify(info));
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
  putPart(
    uploadId: string,
    part: { partNumber: number; etag: string; size: number; file: string; lastModified: string },
  ): string | undefined {
    const previous = this.partByNumber.get(uploadId, part.partNumber);
    this.upsertPart.run({ uploadId, ...part });
    return previous?.file;
  }

  hasPart(file: string): boolean {
    return this.partExists.get(file) !== undefined;
  }

  /** Part rows whose files are gone, for the sweep. */
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
}
