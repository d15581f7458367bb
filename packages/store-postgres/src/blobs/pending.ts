import type { PostgresPool } from '../pool.js';
import { inTransaction } from '../tx.js';
import type { Queryable } from './sql.js';

/** A backend object no row references, due for deletion. */
export interface PendingObject {
  objectKey: string;
  /** The object store's multipart upload id, while the body is written in parts. */
  backendUploadId?: string;
}

/**
 * Records, before any byte is written, that `objectKey` is being written: if the writer dies, the sweep
 * deletes the object once `graceMs` has passed. The grace must outlast the longest upload.
 */
export async function markPending(db: Queryable, objectKey: string, graceMs: number): Promise<void> {
  await db.query(
    `INSERT INTO blob_pending_objects (object_key, delete_after)
     VALUES ($1, now() + make_interval(secs => $2::double precision / 1000))`,
    [objectKey, graceMs],
  );
}

/** Remembers the object store's multipart upload id, so the sweep can abort it. */
export async function notePendingUpload(db: Queryable, objectKey: string, backendUploadId: string): Promise<void> {
  await db.query('UPDATE blob_pending_objects SET backend_upload_id = $2 WHERE object_key = $1', [
    objectKey,
    backendUploadId,
  ]);
}

/** Raised when a write outlived its grace period and the sweep took its object: nothing is committed. */
export class PendingObjectLost extends Error {
  constructor(readonly objectKey: string) {
    super(`the object ${objectKey} was swept before it was committed (the write outlived its grace period)`);
  }
}

/**
 * Takes an object out of the intent log as part of the transaction that makes a row reference it. Waits
 * for a sweep holding the mark; throws `PendingObjectLost` when the sweep already deleted the object.
 */
export async function claimPending(db: Queryable, objectKey: string): Promise<void> {
  const { rowCount } = await db.query('DELETE FROM blob_pending_objects WHERE object_key = $1', [objectKey]);
  if (rowCount !== 1) throw new PendingObjectLost(objectKey);
}

/** Forgets a pending object the writer cleaned up itself (an upload that failed its checks). */
export async function forgetPending(db: Queryable, objectKey: string): Promise<void> {
  await db.query('DELETE FROM blob_pending_objects WHERE object_key = $1', [objectKey]);
}

/**
 * One sweep step, safe on any number of servers at once: locks up to `limit` due objects no other sweep
 * holds, lets `remove` delete them from the store, and forgets those it removed, all in one transaction
 * (a commit racing the sweep waits for it, then finds its mark gone). Returns how many were removed.
 */
export async function sweepDue(
  pool: PostgresPool,
  remove: (objects: PendingObject[]) => Promise<string[]>,
  limit = 100,
): Promise<number> {
  return inTransaction(pool, async (client) => {
    const { rows } = await client.query<{ object_key: string; backend_upload_id: string | null }>(
      `SELECT object_key, backend_upload_id FROM blob_pending_objects WHERE delete_after <= now()
       ORDER BY delete_after LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [limit],
    );
    const due = rows.map((row) =>
      row.backend_upload_id === null
        ? { objectKey: row.object_key }
        : { objectKey: row.object_key, backendUploadId: row.backend_upload_id },
    );
    const removed = due.length === 0 ? [] : await remove(due);
    if (removed.length > 0) {
      await client.query('DELETE FROM blob_pending_objects WHERE object_key = ANY($1::text[])', [removed]);
    }
    return removed.length;
  });
}
