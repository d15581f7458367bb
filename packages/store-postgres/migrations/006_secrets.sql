-- Tenant secrets, encrypted at rest: the value under a per-version data key, the data key wrapped by a
-- key-encryption key the database never holds (only its id). One row per (tenant, env, name).
CREATE TABLE secrets (
  tenant_id TEXT NOT NULL,
  env TEXT NOT NULL,
  name TEXT NOT NULL,
  version INTEGER NOT NULL,
  kek_id TEXT NOT NULL,
  wrapped_key BYTEA NOT NULL,
  ciphertext BYTEA NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  updated_by TEXT NOT NULL,
  PRIMARY KEY (tenant_id, env, name)
);
CREATE INDEX secrets_kek ON secrets (kek_id);

-- Every change, never a value; the tenant reads it in seq order.
CREATE TABLE secret_audit (
  seq BIGSERIAL PRIMARY KEY,
  tenant_id TEXT NOT NULL,
  env TEXT NOT NULL,
  name TEXT NOT NULL,
  action TEXT NOT NULL,
  version INTEGER NOT NULL,
  actor TEXT NOT NULL,
  at TEXT NOT NULL
);
CREATE INDEX secret_audit_tenant ON secret_audit (tenant_id, seq);
