import type {
  BlobFilter,
  BlobMeta,
  CommitOutcome,
  ObjectRowsPort,
  ObjectWhere,
  StoredObject,
  WriteConditions,
  WrittenBytes,
} from '@kindgi/bindings';
import { writeConditionsHold } from '@kindgi/bindings';
import type { KindgiDatabase } from '../database.js';
import { GroupCommit } from './group-commit.js';
import type { SqliteBlobRefs } from './refs.js';

/** A key as SQLite sorts it: UTF-16BE bytes, whose memcmp order is JavaScript's code-unit order. */
export function sortKey(key: string): Buffer {
  return Buffer.from(key, 'utf16le').swap16();
}

const parse = (row: { meta: string } | undefined): BlobMeta | undefined =>
  row === undefined ? undefined : (JSON.parse(row.meta) as BlobMeta);

/** The objects' rows in SQLite, and `replace` for a multipart completion's own transaction. */
export interface SqliteObjectRows {
  port: ObjectRowsPort;
  /** Inserts `meta` (with its bytes, when kept inline) as the object at its address; the replaced object's ref. */
  replace(meta: BlobMeta, inline: Uint8Array | undefined): string | undefined;
}

/**
 * Objects in SQLite: a row per object, with the bytes of a small one in `blob_inline`. Commits of small
 * objects are grouped (one fsync for many, see `GroupCommit`); a file object's commit is a transaction alone.
 */
export function sqliteObjectRows(db: KindgiDatabase, refs: SqliteBlobRefs): SqliteObjectRows {
  const byId = db.prepare<[string, string], { meta: string }>(
    'SELECT meta FROM blobs WHERE blob_id = ? AND tenant_id = ?',
  );
  const at = db.prepare<[string, string, Buffer], { meta: string }>(
    'SELECT meta FROM blobs WHERE tenant_id = ? AND bucket = ? AND key_sort = ?',
  );
  const scanFrom = (op: '>' | '>=') =>
    db.prepare<[string, string, Buffer, number], { meta: string }>(
      `SELECT meta FROM blobs WHERE tenant_id = ? AND bucket = ? AND key_sort ${op} ? ORDER BY key_sort LIMIT ?`,
    );
  const [scanAt, scanAfter] = [scanFrom('>='), scanFrom('>')];
  const insert = db.prepare(
    `INSERT INTO blobs (blob_id, tenant_id, bucket, key_sort, owner_run_id, content_type, project_id, meta)
     VALUES (@blobId, @tenantId, @bucket, @keySort, @ownerRunId, @contentType, @projectId, @meta)`,
  );
  const deleteById = db.prepare<[string, string]>('DELETE FROM blobs WHERE blob_id = ? AND tenant_id = ?');
  const insertInline = db.prepare<[string, Uint8Array]>('INSERT INTO blob_inline (blob_id, data) VALUES (?, ?)');
  // Reads fetch a small object's bytes with its metadata: one lookup per GET.
  const read = 'SELECT b.meta, i.data FROM blobs b LEFT JOIN blob_inline i ON i.blob_id = b.blob_id';
  const readById = db.prepare<[string, string], { meta: string; data: Buffer | null }>(
    `${read} WHERE b.blob_id = ? AND b.tenant_id = ?`,
  );
  const readAt = db.prepare<[string, string, Buffer], { meta: string; data: Buffer | null }>(
    `${read} WHERE b.tenant_id = ? AND b.bucket = ? AND b.key_sort = ?`,
  );

  const current = (tenantId: string, where: ObjectWhere): BlobMeta | undefined =>
    parse('blobId' in where ? byId.get(where.blobId, tenantId) : at.get(tenantId, where.bucket, sortKey(where.key)));

  function replace(meta: BlobMeta, inline: Uint8Array | undefined): string | undefined {
    const previous = current(meta.tenantId, { bucket: meta.bucket, key: meta.key });
    if (previous !== undefined) deleteById.run(previous.blobId, meta.tenantId);
    insert.run({
      blobId: meta.blobId,
      tenantId: meta.tenantId,
      bucket: meta.bucket,
      keySort: sortKey(meta.key),
      ownerRunId: meta.ownerRunId ?? null,
      contentType: meta.contentType,
      projectId: meta.projectId ?? null,
      meta: JSON.stringify(meta),
    });
    if (inline !== undefined) insertInline.run(meta.blobId, inline);
    return previous === undefined ? undefined : refs.object(previous.blobId);
  }

  type Commit = { meta: BlobMeta; written: WrittenBytes; conditions: WriteConditions };
  const apply = ({ meta, written, conditions }: Commit): CommitOutcome => {
    // The current object is looked up only when there are conditions to check against it.
    const conditional = conditions.ifNoneMatch !== undefined || conditions.ifMatch !== undefined;
    const address = { bucket: meta.bucket, key: meta.key };
    if (conditional && !writeConditionsHold(current(meta.tenantId, address), conditions)) return { refused: true };
    const replaced = replace(meta, written.inline);
    return replaced === undefined ? { refused: false } : { refused: false, replaced };
  };
  const commitAlone = db.transaction(apply);
  const commitGrouped = new GroupCommit(db, apply);

  const port: ObjectRowsPort = {
    async find(tenantId, where): Promise<StoredObject | undefined> {
      const row =
        'blobId' in where
          ? readById.get(where.blobId, tenantId)
          : readAt.get(tenantId, where.bucket, sortKey(where.key));
      if (row === undefined) return undefined;
      const meta = JSON.parse(row.meta) as BlobMeta;
      const ref = refs.object(meta.blobId);
      return row.data === null ? { meta, ref } : { meta, ref, bytes: row.data };
    },
    async commit(meta, written, conditions) {
      const commit = { meta, written, conditions };
      return written.inline !== undefined ? commitGrouped.submit(commit) : commitAlone.immediate(commit);
    },
    async remove(tenantId, where) {
      const meta = current(tenantId, where);
      if (meta === undefined || deleteById.run(meta.blobId, tenantId).changes === 0) return undefined;
      return refs.object(meta.blobId);
    },
    list: async (tenantId, filter, below, limit) => listRows(db, tenantId, filter, below, limit),
    async scan(tenantId, bucket, from, limit) {
      const statement = from === undefined || from.inclusive ? scanAt : scanAfter;
      return statement.all(tenantId, bucket, sortKey(from?.key ?? ''), limit).map((row) => {
        const meta = JSON.parse(row.meta) as BlobMeta;
        return { key: meta.key, meta };
      });
    },
  };
  return { port, replace };
}

/** A page of `list`: newest first, below a sequence number, every filter applied in SQL. */
function listRows(
  db: KindgiDatabase,
  tenantId: string,
  filter: BlobFilter,
  below: number,
  limit: number,
): { seq: number; meta: BlobMeta }[] {
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
  return db
    .prepare<unknown[], { seq: number; meta: string }>(sql)
    .all(...params)
    .map((row) => ({ seq: row.seq, meta: JSON.parse(row.meta) as BlobMeta }));
}
