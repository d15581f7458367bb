-- Approvals of agent runs (an approval gate suspends the run as `waiting`): the approval's record and the
-- suspended turn's state, written in the same transaction as the run's suspension; a decision locks the row
-- and requeues the run in one transaction, so any server resumes it.
CREATE TABLE run_approvals (
  seq BIGSERIAL PRIMARY KEY,
  tenant_id TEXT NOT NULL,
  approval_id TEXT NOT NULL,
  run_id TEXT NOT NULL,
  status TEXT NOT NULL,
  record TEXT NOT NULL,
  state TEXT NOT NULL,
  UNIQUE (tenant_id, approval_id)
);
CREATE INDEX run_approvals_run ON run_approvals (tenant_id, run_id, seq);
CREATE INDEX run_approvals_status ON run_approvals (tenant_id, status, seq);
