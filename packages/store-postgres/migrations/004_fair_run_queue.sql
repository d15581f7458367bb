-- Fair claims (run-store.ts): each tenant's queue in claim order, walked tenant by tenant, and each tenant's
-- last claim (`turn`, from one sequence), so a tenant with as many runs running as another but served more
-- recently waits for the other.
CREATE INDEX runs_tenant_queue ON runs (tenant_id, seq) WHERE status = 'queued';
CREATE SEQUENCE run_turn_seq;
CREATE TABLE run_turns (
  tenant_id TEXT PRIMARY KEY,
  turn BIGINT NOT NULL
);
