import type { IdempotencyEntry, IdempotencyHoldOutcome, IdempotencyStore } from '@kindgi/bindings';
import { type DatabaseSource, type KindgiDatabase, resolveDatabase } from './database.js';

interface EntryRow {
  body_hash: string;
  status: number;
  content_type: string;
  body_text: string;
  expires_at: number;
}

const toEntry = (row: EntryRow): IdempotencyEntry => ({
  bodyHash: row.body_hash,
  status: row.status,
  contentType: row.content_type,
  bodyText: row.body_text,
  expiresAt: row.expires_at,
});

/** An `IdempotencyStore` whose answers and holds survive restarts; `close()` closes a database it opened. */
export interface SqliteIdempotencyStore extends IdempotencyStore {
  readonly database: KindgiDatabase;
  close(): void;
}

/**
 * A durable `IdempotencyStore` (with holds) on the shared Kindgi database: a retry after a restart replays
 * the stored answer. Expired entries and holds count as absent and are pruned as new answers arrive.
 */
export function createSqliteIdempotencyStore(
  source: DatabaseSource,
  now: () => number = Date.now,
): SqliteIdempotencyStore {
  const { db, owned } = resolveDatabase(source);
  const select = db.prepare<[string, number], EntryRow>(
    'SELECT body_hash, status, content_type, body_text, expires_at FROM idempotency_entries WHERE key = ? AND expires_at > ?',
  );
  const insert = db.prepare(
    `INSERT INTO idempotency_entries (key, body_hash, status, content_type, body_text, expires_at)
     VALUES (@key, @bodyHash, @status, @contentType, @bodyText, @expiresAt)
     ON CONFLICT (key) DO UPDATE SET body_hash = excluded.body_hash, status = excluded.status,
       content_type = excluded.content_type, body_text = excluded.body_text, expires_at = excluded.expires_at
     WHERE idempotency_entries.expires_at <= @now`,
  );
  const prune = db.prepare<[number]>('DELETE FROM idempotency_entries WHERE expires_at <= ?');
  const pruneHolds = db.prepare<[number]>('DELETE FROM idempotency_holds WHERE expires_at <= ?');
  const selectHold = db.prepare<[string, number], { holder: string; body_hash: string }>(
    'SELECT holder, body_hash FROM idempotency_holds WHERE key = ? AND expires_at > ?',
  );
  const upsertHold = db.prepare<[string, string, string, number]>(
    `INSERT INTO idempotency_holds (key, holder, body_hash, expires_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (key) DO UPDATE SET holder = excluded.holder, body_hash = excluded.body_hash,
       expires_at = excluded.expires_at`,
  );
  const renewHold = db.prepare<[number, string, string]>(
    'UPDATE idempotency_holds SET expires_at = ? WHERE key = ? AND holder = ?',
  );
  const deleteHold = db.prepare<[string, string]>('DELETE FROM idempotency_holds WHERE key = ? AND holder = ?');
  const deleteAnyHold = db.prepare<[string]>('DELETE FROM idempotency_holds WHERE key = ?');

  const set = db.transaction((key: string, entry: IdempotencyEntry) => {
    const at = now();
    prune.run(at);
    pruneHolds.run(at);
    insert.run({ key, ...entry, now: at });
    // The answer is stored, so the claim that guarded its computation is done.
    deleteAnyHold.run(key);
  });
  const hold = db.transaction((key: string, claim: { holder: string; bodyHash: string; expiresAt: number }) => {
    const at = now();
    const stored = select.get(key, at);
    if (stored !== undefined) return { kind: 'stored', entry: toEntry(stored) } satisfies IdempotencyHoldOutcome;
    const current = selectHold.get(key, at);
    if (current !== undefined && current.holder !== claim.holder) {
      return { kind: 'in-flight', bodyHash: current.body_hash } satisfies IdempotencyHoldOutcome;
    }
    upsertHold.run(key, claim.holder, claim.bodyHash, claim.expiresAt);
    return { kind: 'held' } satisfies IdempotencyHoldOutcome;
  });

  return {
    database: db,
    close() {
      if (owned) db.close();
    },
    async get(key) {
      const row = select.get(key, now());
      return row === undefined ? null : toEntry(row);
    },
    async set(key, entry) {
      set.immediate(key, entry);
    },
    holds: {
      async hold(key, claim) {
        return hold.immediate(key, claim);
      },
      async renew(key, holder, expiresAt) {
        renewHold.run(expiresAt, key, holder);
      },
      async release(key, holder) {
        deleteHold.run(key, holder);
      },
    },
  };
}
