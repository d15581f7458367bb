-- Idempotency answers and the holds that guard a key while its first request runs.
CREATE TABLE idempotency_entries (
  key TEXT PRIMARY KEY,
  body_hash TEXT NOT NULL,
  status INTEGER NOT NULL,
  content_type TEXT NOT NULL,
  body_text TEXT NOT NULL,
  expires_at BIGINT NOT NULL
);
CREATE INDEX idempotency_entries_expiry ON idempotency_entries (expires_at);

CREATE TABLE idempotency_holds (
  key TEXT PRIMARY KEY,
  holder TEXT NOT NULL,
  body_hash TEXT NOT NULL,
  expires_at BIGINT NOT NULL
);

-- Runs. `record` is the RunRecord without its output; the output is kept once, in `output`, and listings
-- read only `output_size`. A queued run is claimed by one server at a time through a lease
-- (`lease_owner`, `lease_expires_at`); `available_at` delays a retry after a pack's 503.
CREATE TABLE runs (
  seq BIGSERIAL PRIMARY KEY,
  tenant_id TEXT NOT NULL,
  run_id TEXT NOT NULL,
  tool_id TEXT NOT NULL,
  pack_id TEXT NOT NULL DEFAULT '',
  job TEXT NOT NULL DEFAULT '{}',
  status TEXT NOT NULL,
  record TEXT NOT NULL,
  output TEXT,
  output_size BIGINT,
  last_event INTEGER NOT NULL DEFAULT 0,
  attempts INTEGER NOT NULL DEFAULT 0,
  available_at BIGINT NOT NULL DEFAULT 0,
  lease_owner TEXT,
  lease_expires_at BIGINT,
  cancel_requested BOOLEAN NOT NULL DEFAULT FALSE,
  UNIQUE (tenant_id, run_id)
);
CREATE INDEX runs_status ON runs (tenant_id, status, seq);
CREATE INDEX runs_tool ON runs (tenant_id, tool_id, seq);
CREATE INDEX runs_queue ON runs (pack_id, seq) WHERE status = 'queued';
CREATE INDEX runs_leases ON runs (lease_expires_at) WHERE status = 'running';

CREATE TABLE run_events (
  tenant_id TEXT NOT NULL,
  run_id TEXT NOT NULL,
  sequence INTEGER NOT NULL,
  kind TEXT NOT NULL,
  data TEXT NOT NULL,
  at TEXT NOT NULL,
  PRIMARY KEY (tenant_id, run_id, sequence)
);
