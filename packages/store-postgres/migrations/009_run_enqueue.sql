-- Enqueues a run in one statement (one round trip instead of a transaction of four): locks the pack's queue
-- across servers, counts its queued runs (all, and the tenant's), and inserts the run unless a limit is reached,
-- announcing it on `p_channel`. Each statement of a VOLATILE function takes a new snapshot, so the counts after
-- the lock see every run enqueued before it was granted. Returns 'inserted', 'exists' (the run id is taken),
-- 'full' or 'tenant-full'.
CREATE FUNCTION kindgi_run_enqueue(
  p_tenant_id TEXT,
  p_run_id TEXT,
  p_tool_id TEXT,
  p_pack_id TEXT,
  p_job TEXT,
  p_record TEXT,
  p_max_queued INTEGER,
  p_max_queued_per_tenant INTEGER,
  p_channel TEXT
) RETURNS TEXT
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  queued INTEGER;
  mine INTEGER;
  refusal TEXT;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('kindgi-run-queue:' || p_pack_id));
  SELECT count(*)::int, (count(*) FILTER (WHERE r.tenant_id = p_tenant_id))::int INTO queued, mine
    FROM runs r WHERE r.pack_id = p_pack_id AND r.status = 'queued';
  IF p_max_queued_per_tenant IS NOT NULL AND mine >= p_max_queued_per_tenant THEN
    refusal := 'tenant-full';
  ELSIF queued >= p_max_queued THEN
    refusal := 'full';
  END IF;
  IF refusal IS NOT NULL THEN
    PERFORM 1 FROM runs r WHERE r.tenant_id = p_tenant_id AND r.run_id = p_run_id;
    RETURN CASE WHEN FOUND THEN 'exists' ELSE refusal END;
  END IF;
  INSERT INTO runs (tenant_id, run_id, tool_id, pack_id, job, status, record)
    VALUES (p_tenant_id, p_run_id, p_tool_id, p_pack_id, p_job, 'queued', p_record)
    ON CONFLICT (tenant_id, run_id) DO NOTHING;
  IF NOT FOUND THEN
    RETURN 'exists';
  END IF;
  PERFORM pg_notify(p_channel, p_pack_id);
  RETURN 'inserted';
END;
$$;
