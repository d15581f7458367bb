import type { BlobMeta } from '@kindgi/bindings';
import type pg from 'pg';

/** A connection or the pool: whatever a statement runs on. */
export type Queryable = Pick<pg.PoolClient, 'query'>;

/** A key as PostgreSQL sorts it: UTF-16BE bytes, whose bytewise order is JavaScript's code-unit order. */
export function sortKey(key: string): Buffer {
  return Buffer.from(key, 'utf16le').swap16();
}

/**
 * The text whose 64-bit hash locks one address (`pg_advisory_xact_lock(hashtextextended(key, 7))`), serializing
 * its writers across every server; a hash collision only makes two unrelated writes wait for each other.
 */
export function addressLockKey(tenantId: string, bucket: string, key: string): string {
  return JSON.stringify(['blob', tenantId, bucket, key]);
}

/** Reads a stored BlobMeta back. */
export function parseMeta(text: string): BlobMeta {
  return JSON.parse(text) as BlobMeta;
}

/** Marks an object as no longer referenced: the sweep deletes it from the store (at once by default). */
export async function discardObject(client: Queryable, objectKey: string, afterMs = 0): Promise<void> {
  await client.query(
    `INSERT INTO blob_pending_objects (object_key, delete_after)
     VALUES ($1, now() + make_interval(secs => $2::double precision / 1000))
     ON CONFLICT (object_key) DO UPDATE SET delete_after = LEAST(blob_pending_objects.delete_after, excluded.delete_after)`,
    [objectKey, afterMs],
  );
}
