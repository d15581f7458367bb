import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

/** The embedded database every durable Kindgi store shares (blobs, uploads, idempotency answers, runs). */
export type KindgiDatabase = Database.Database;

/** The database file inside a data directory. */
export const DATABASE_FILE = 'kindgi.sqlite';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS blobs (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  blob_id TEXT NOT NULL UNIQUE,
  tenant_id TEXT NOT NULL,
  bucket TEXT NOT NULL,
  key_sort BLOB NOT NULL,
  owner_run_id TEXT,
  content_type TEXT NOT NULL,
  project_id TEXT,
  meta TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS blobs_address ON blobs (tenant_id, bucket, key_sort);
CREATE INDEX IF NOT EXISTS blobs_tenant_seq ON blobs (tenant_id, seq);
CREATE INDEX IF NOT EXISTS blobs_owner_run ON blobs (tenant_id, owner_run_id, seq);
CREATE INDEX IF NOT EXISTS blobs_project ON blobs (tenant_id, project_id, seq);
CREATE TABLE IF NOT EXISTS blob_inline (
  blob_id TEXT PRIMARY KEY REFERENCES blobs (blob_id) ON DELETE CASCADE,
  data BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS uploads (
  upload_id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL,
  info TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS uploads_tenant_open ON uploads (tenant_id) WHERE json_extract(info, '$.completed') IS NULL;
CREATE TABLE IF NOT EXISTS upload_parts (
  upload_id TEXT NOT NULL,
  part_number INTEGER NOT NULL,
  etag TEXT NOT NULL,
  size INTEGER NOT NULL,
  file TEXT NOT NULL UNIQUE,
  last_modified TEXT NOT NULL,
  PRIMARY KEY (upload_id, part_number)
);
CREATE TABLE IF NOT EXISTS blob_dir_owner (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  pid INTEGER NOT NULL,
  opened_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS idempotency_entries (
  key TEXT PRIMARY KEY,
  body_hash TEXT NOT NULL,
  status INTEGER NOT NULL,
  content_type TEXT NOT NULL,
  body_text TEXT NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS idempotency_entries_expiry ON idempotency_entries (expires_at);
CREATE TABLE IF NOT EXISTS idempotency_holds (
  key TEXT PRIMARY KEY,
  holder TEXT NOT NULL,
  body_hash TEXT NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS runs (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  tenant_id TEXT NOT NULL,
  run_id TEXT NOT NULL,
  tool_id TEXT NOT NULL,
  status TEXT NOT NULL,
  record TEXT NOT NULL,
  last_event INTEGER NOT NULL DEFAULT 0,
  UNIQUE (tenant_id, run_id)
);
CREATE INDEX IF NOT EXISTS runs_status ON runs (tenant_id, status, seq);
CREATE INDEX IF NOT EXISTS runs_tool ON runs (tenant_id, tool_id, seq);
CREATE TABLE IF NOT EXISTS run_events (
  tenant_id TEXT NOT NULL,
  run_id TEXT NOT NULL,
  sequence INTEGER NOT NULL,
  kind TEXT NOT NULL,
  data TEXT NOT NULL,
  at TEXT NOT NULL,
  PRIMARY KEY (tenant_id, run_id, sequence)
);
CREATE TABLE IF NOT EXISTS secrets (
  tenant_id TEXT NOT NULL,
  env TEXT NOT NULL,
  name TEXT NOT NULL,
  version INTEGER NOT NULL,
  kek_id TEXT NOT NULL,
  wrapped_key BLOB NOT NULL,
  ciphertext BLOB NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  updated_by TEXT NOT NULL,
  PRIMARY KEY (tenant_id, env, name)
);
CREATE INDEX IF NOT EXISTS secrets_kek ON secrets (kek_id);
CREATE TABLE IF NOT EXISTS secret_audit (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  tenant_id TEXT NOT NULL,
  env TEXT NOT NULL,
  name TEXT NOT NULL,
  action TEXT NOT NULL,
  version INTEGER NOT NULL,
  actor TEXT NOT NULL,
  at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS secret_audit_tenant ON secret_audit (tenant_id, seq);
`;

/** Columns added after a table first shipped: created here on databases made before them. */
const ADDED_COLUMNS: ReadonlyArray<{ table: string; column: string; definition: string }> = [
  { table: 'upload_parts', column: 'checksums', definition: 'TEXT' },
  // The run queue and leases (run-store.ts); the output is kept apart from the listed record.
  { table: 'runs', column: 'pack_id', definition: "TEXT NOT NULL DEFAULT ''" },
  { table: 'runs', column: 'job', definition: "TEXT NOT NULL DEFAULT '{}'" },
  { table: 'runs', column: 'output', definition: 'TEXT' },
  { table: 'runs', column: 'attempts', definition: 'INTEGER NOT NULL DEFAULT 0' },
  { table: 'runs', column: 'available_at', definition: 'INTEGER NOT NULL DEFAULT 0' },
  { table: 'runs', column: 'lease_owner', definition: 'TEXT' },
  { table: 'runs', column: 'lease_expires_at', definition: 'INTEGER' },
];

function migrate(db: KindgiDatabase): void {
  for (const { table, column, definition } of ADDED_COLUMNS) {
    const columns = db.prepare<[], { name: string }>(`SELECT name FROM pragma_table_info('${table}')`).all();
    if (!columns.some((row) => row.name === column)) db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${definition}`);
  }
}

/**
 * Prepares a database for Kindgi's stores: WAL journaling (readers never block the writer), full fsync on
 * commit (an acknowledged write survives power loss), a busy timeout instead of immediate `SQLITE_BUSY`, and
 * every table created if missing. Safe to call on a database that is already prepared.
 */
export function prepareKindgiDatabase(db: KindgiDatabase): KindgiDatabase {
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  db.exec(SCHEMA);
  migrate(db);
  return db;
}

/** Opens (creating when missing) `<dataDir>/kindgi.sqlite`, prepared for every Kindgi store. Throws on I/O errors. */
export function openKindgiDatabase(dataDir: string): KindgiDatabase {
  mkdirSync(dataDir, { recursive: true });
  return prepareKindgiDatabase(new Database(join(dataDir, DATABASE_FILE)));
}

/** A database given directly, or the data directory to open one in. */
export type DatabaseSource = KindgiDatabase | string;

/** Resolves a `DatabaseSource`; `owned` says whether the caller opened it (and so must close it). */
export function resolveDatabase(source: DatabaseSource): { db: KindgiDatabase; owned: boolean } {
  if (typeof source === 'string') return { db: openKindgiDatabase(source), owned: true };
  return { db: prepareKindgiDatabase(source), owned: false };
}
