-- Small objects' bytes kept in their row (blob-s3 keeps bodies up to 64 KiB here, as blob-fs keeps them in
-- SQLite): a PUT and a GET of one are a single statement each, with no object-store request and no intent-log
-- entry. `data` is NULL for an object whose bytes are in the object store. A row of up to ~8 KB (the largest
-- `toast_tuple_target`) stays whole in the table, bytes included: no TOAST rows to write or read for the
-- commonest small objects. Larger bytes go out of line (EXTERNAL) but are never compressed, so a write spends
-- no CPU trying to compress bytes that rarely shrink.
ALTER TABLE blobs ADD COLUMN data BYTEA;
ALTER TABLE blobs ALTER COLUMN data SET STORAGE EXTERNAL;
ALTER TABLE blobs SET (toast_tuple_target = 8160);

-- `kindgi_blob_commit` (migration 002) with the bytes: `p_data` NULL commits an object-store object exactly as
-- before; otherwise the object is its row alone, so it has no intent-log mark to claim and nothing to sweep
-- when refused. Replacing an inline object hands nothing to the sweep either (`replaced_object_key` NULL). The
-- twelve-argument function stays for servers of the previous version during a rolling deploy.
CREATE FUNCTION kindgi_blob_commit(
  p_object_key TEXT,
  p_lock_key TEXT,
  p_blob_id TEXT,
  p_tenant_id TEXT,
  p_bucket TEXT,
  p_key_sort BYTEA,
  p_owner_run_id TEXT,
  p_content_type TEXT,
  p_project_id TEXT,
  p_meta TEXT,
  p_if_none_match BOOLEAN,
  p_if_match TEXT,
  p_data BYTEA
) RETURNS TABLE (outcome TEXT, replaced_object_key TEXT)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  current_id TEXT;
  current_object TEXT;
  current_etag TEXT;
  current_inline BOOLEAN;
BEGIN
  IF p_data IS NULL THEN
    DELETE FROM blob_pending_objects WHERE object_key = p_object_key;
    IF NOT FOUND THEN
      INSERT INTO blob_pending_objects (object_key, delete_after) VALUES (p_object_key, now())
        ON CONFLICT (object_key) DO UPDATE SET delete_after = now();
      RETURN QUERY SELECT 'lost'::TEXT, NULL::TEXT;
      RETURN;
    END IF;
  END IF;
  PERFORM pg_advisory_xact_lock(hashtextextended(p_lock_key, 7));
  -- A statement after the lock: under READ COMMITTED it sees the row a writer that held the lock committed.
  SELECT b.blob_id, b.object_key, b.meta::json ->> 'etag', b.data IS NOT NULL
    INTO current_id, current_object, current_etag, current_inline
    FROM blobs b WHERE b.tenant_id = p_tenant_id AND b.bucket = p_bucket AND b.key_sort = p_key_sort;
  IF (p_if_none_match AND current_id IS NOT NULL)
     OR (p_if_match IS NOT NULL AND (current_id IS NULL OR current_etag IS DISTINCT FROM p_if_match)) THEN
    IF p_data IS NULL THEN
      INSERT INTO blob_pending_objects (object_key, delete_after) VALUES (p_object_key, now());
    END IF;
    RETURN QUERY SELECT 'refused'::TEXT, NULL::TEXT;
    RETURN;
  END IF;
  IF current_id IS NOT NULL THEN
    DELETE FROM blobs WHERE blob_id = current_id;
    IF current_inline THEN
      current_object := NULL;
    ELSE
      INSERT INTO blob_pending_objects (object_key, delete_after) VALUES (current_object, now())
        ON CONFLICT (object_key) DO UPDATE SET delete_after = now();
    END IF;
  END IF;
  INSERT INTO blobs (blob_id, tenant_id, bucket, key_sort, owner_run_id, content_type, project_id, object_key, meta,
                     data)
    VALUES (p_blob_id, p_tenant_id, p_bucket, p_key_sort, p_owner_run_id, p_content_type, p_project_id,
            p_object_key, p_meta, p_data);
  RETURN QUERY SELECT 'stored'::TEXT, current_object;
END;
$$;
