import type { IdempotencyEntry, IdempotencyHoldOutcome, IdempotencyStore } from '@kindgi/bindings';
import type { PostgresPool } from './pool.js';
import { inTransaction, sql } from './tx.js';

interface EntryRow {
  body_hash: string;
  status: number;
  content_type: string;
  body_text: string;
  expires_at: string;
}

const toEntry = (row: EntryRow): IdempotencyEntry => ({
  bodyHash: row.body_hash,
  status: row.status,
  contentType: row.content_type,
  bodyText: row.body_text,
  expiresAt: Number(row.expires_at),
});

const SELECT_ENTRY =
  'SELECT body_hash, status, content_type, body_text, expires_at FROM idempotency_entries WHERE key = $1 AND expires_at > $2';

/**
 * An `IdempotencyStore` with holds on PostgreSQL, shared by N servers: of two servers receiving one key at
 * once, exactly one gets the hold (an upsert on the hold's row, which PostgreSQL serializes); the other sees
 * it in flight, or the stored answer once the first has finished. Failures reject (the middleware answers 503).
 */
export function createPostgresIdempotencyStore(pool: PostgresPool, now: () => number = Date.now): IdempotencyStore {
  return {
    async get(key) {
      const found = await sql<EntryRow>(pool, SELECT_ENTRY, [key, now()]);
      const row = found.rows[0];
      return row === undefined ? null : toEntry(row);
    },
    async set(key, entry) {
      await inTransaction(pool, async (client) => {
        const at = now();
        await sql(
          client,
          `INSERT INTO idempotency_entries (key, body_hash, status, content_type, body_text, expires_at)
           VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (key) DO UPDATE SET body_hash = excluded.body_hash, status = excluded.status,
             content_type = excluded.content_type, body_text = excluded.body_text, expires_at = excluded.expires_at
           WHERE idempotency_entries.expires_at <= $7`,
          [key, entry.bodyHash, entry.status, entry.contentType, entry.bodyText, entry.expiresAt, at],
        );
        // The answer is stored, so the claim that guarded its computation is done.
        await sql(client, 'DELETE FROM idempotency_holds WHERE key = $1', [key]);
      });
      // Expired rows are pruned now and then rather than on every write.
      if (Math.random() < 0.01) {
        const at = now();
        await sql(pool, 'DELETE FROM idempotency_entries WHERE expires_at <= $1', [at]);
        await sql(pool, 'DELETE FROM idempotency_holds WHERE expires_at <= $1', [at]);
      }
    },
    holds: {
      async hold(key, claim) {
        return inTransaction(pool, async (client): Promise<IdempotencyHoldOutcome> => {
          const at = now();
          const taken = await sql<{ holder: string; body_hash: string }>(
            client,
            `INSERT INTO idempotency_holds AS h (key, holder, body_hash, expires_at) VALUES ($1, $2, $3, $4)
             ON CONFLICT (key) DO UPDATE SET holder = excluded.holder, body_hash = excluded.body_hash,
               expires_at = excluded.expires_at
             WHERE h.expires_at <= $5 OR h.holder = excluded.holder
             RETURNING holder`,
            [key, claim.holder, claim.bodyHash, claim.expiresAt, at],
          );
          if (taken.rowCount === 0) {
            const current = await sql<{ body_hash: string }>(
              client,
              'SELECT body_hash FROM idempotency_holds WHERE key = $1',
              [key],
            );
            return { kind: 'in-flight', bodyHash: current.rows[0]?.body_hash ?? '' };
          }
          // Checked after taking the hold: an answer stored by a holder that just finished is seen here.
          const stored = await sql<EntryRow>(client, SELECT_ENTRY, [key, at]);
          const row = stored.rows[0];
          if (row !== undefined) {
            await sql(client, 'DELETE FROM idempotency_holds WHERE key = $1 AND holder = $2', [key, claim.holder]);
            return { kind: 'stored', entry: toEntry(row) };
          }
          return { kind: 'held' };
        });
      },
      async renew(key, holder, expiresAt) {
        await sql(pool, 'UPDATE idempotency_holds SET expires_at = $1 WHERE key = $2 AND holder = $3', [
          expiresAt,
          key,
          holder,
        ]);
      },
      async release(key, holder) {
        await sql(pool, 'DELETE FROM idempotency_holds WHERE key = $1 AND holder = $2', [key, holder]);
      },
    },
  };
}
