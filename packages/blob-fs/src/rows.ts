import type { BlobFilter, BlobMeta, ScanBound } from '@kindgi/bindings';
import type { KindgiDatabase } from './database.js';

/** A key as SQLite sorts it: UTF-16BE bytes, whose memcmp order is JavaScript's code-unit order. */
export function sortKey(key: string): Buffer {
  return Buffer.from(key, 'utf16le').swap16();
}

/** An object as a read finds it: the bytes are there only for an object kept inside the database. */
export interface StoredRead {
  meta: BlobMeta;
  data?: Buffer;
}

function storedRead(row: { meta: string; data: Buffer | null } | undefined): StoredRead | undefined {
  if (row === undefined) return undefined;
  const meta = JSON.parse(row.meta) as BlobMeta;
  return row.data === null ? { meta } : { meta, data: row.data };
}

/** The SQL behind stored objects, as prepared statements (uploads are in `UploadRows`). */
export class BlobRows {
  private readonly byId;
  private readonly byAddress;
  private readonly afterKey;
  private readonly atKey;
  private readonly insert;
  private readonly deleteById;
  private readonly blobExists;
  private readonly insertInline;
  private readonly readByIdStatement;
  private readonly readAtStatement;

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
    this.insertInline = db.prepare<[string, Buffer]>('INSERT INTO blob_inline (blob_id, data) VALUES (?, ?)');
    // Reads fetch a small object's bytes with its metadata: one lookup per GET.
    const read = 'SELECT b.meta, i.data FROM blobs b LEFT JOIN blob_inline i ON i.blob_id = b.blob_id';
    this.readByIdStatement = db.prepare<[string, string], { meta: string; data: Buffer | null }>(
      `${read} WHERE b.blob_id = ? AND b.tenant_id = ?`,
    );
    this.readAtStatement = db.prepare<[string, string, Buffer], { meta: string; data: Buffer | null }>(
      `${read} WHERE b.tenant_id = ? AND b.bucket = ? AND b.key_sort = ?`,
    );
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

  /** Keeps a small object's bytes in its row (inside the caller's transaction, after `replace`). */
  putInline(blobId: string, data: Buffer): void {
    this.insertInline.run(blobId, data);
  }

  /** An object to read by blobId: its metadata, and its bytes when they live in the database. */
  readById(tenantId: string, blobId: string): StoredRead | undefined {
    return storedRead(this.readByIdStatement.get(blobId, tenantId));
  }

  /** An object to read by address: its metadata, and its bytes when they live in the database. */
  readAt(tenantId: string, bucket: string, key: string): StoredRead | undefined {
    return storedRead(this.readAtStatement.get(tenantId, bucket, sortKey(key)));
  }

  remove(tenantId: string, blobId: string): boolean {
    return this.deleteById.run(blobId, tenantId).changes > 0;
  }

  hasBlob(blobId: string): boolean {
    return this.blobExists.get(blobId) !== undefined;
  }

  /** Every blobId kept in a file (inline ones have none), for the sweep of rows whose files are gone. */
  allBlobIds(): string[] {
    return this.db
      .prepare<[], { blob_id: string }>(
        'SELECT blob_id FROM blobs WHERE NOT EXISTS (SELECT 1 FROM blob_inline WHERE blob_inline.blob_id = blobs.blob_id)',
      )
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
}
