-- Blob metadata: every field blob-fs keeps. The bytes live elsewhere (an object store); `object_key` names
-- them there. `key_sort` is the key as UTF-16BE bytes, whose bytewise order is JavaScript's code-unit order,
-- the order listByPrefix promises (a text column would sort by collation or by UTF-8 bytes, which differ).
-- `meta` is the BlobMeta as JSON text: a `jsonb` column refuses the NUL character a key may hold.
CREATE TABLE blobs (
  seq BIGSERIAL PRIMARY KEY,
  blob_id TEXT NOT NULL UNIQUE,
  tenant_id TEXT NOT NULL,
  bucket TEXT NOT NULL,
  key_sort BYTEA NOT NULL,
  owner_run_id TEXT,
  content_type TEXT NOT NULL,
  project_id TEXT,
  object_key TEXT NOT NULL,
  meta TEXT NOT NULL
);
CREATE UNIQUE INDEX blobs_address ON blobs (tenant_id, bucket, key_sort);
CREATE INDEX blobs_tenant_seq ON blobs (tenant_id, seq);
CREATE INDEX blobs_owner_run ON blobs (tenant_id, owner_run_id, seq);
CREATE INDEX blobs_project ON blobs (tenant_id, project_id, seq);

-- Multipart uploads and their parts (each part is an object of its own until completion). A completed
-- upload keeps its row (`completed`: the part list and the BlobMeta it answered) so a retried completion
-- gets the same answer, until expiry forgets it.
CREATE TABLE blob_uploads (
  upload_id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL,
  bucket TEXT NOT NULL,
  key_sort BYTEA NOT NULL,
  info TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL,
  completed TEXT,
  completed_at TIMESTAMPTZ
);
CREATE INDEX blob_uploads_address ON blob_uploads (tenant_id, bucket, key_sort, (upload_id COLLATE "C"));
CREATE INDEX blob_uploads_expiry ON blob_uploads ((COALESCE(completed_at, created_at)));
CREATE TABLE blob_upload_parts (
  upload_id TEXT NOT NULL REFERENCES blob_uploads (upload_id) ON DELETE CASCADE,
  part_number INTEGER NOT NULL,
  etag TEXT NOT NULL,
  size BIGINT NOT NULL,
  object_key TEXT NOT NULL UNIQUE,
  last_modified TEXT NOT NULL,
  checksums TEXT,
  PRIMARY KEY (upload_id, part_number)
);

-- The intent log of backend objects no row references: a body being written (due once its grace period
-- ends, so a crash mid-write is cleaned up) or an object replaced or deleted (due at once). The sweep
-- deletes due objects from the store, then their rows; a committed object's row is removed in the same
-- transaction that makes it visible.
CREATE TABLE blob_pending_objects (
  object_key TEXT PRIMARY KEY,
  backend_upload_id TEXT,
  delete_after TIMESTAMPTZ NOT NULL
);
CREATE INDEX blob_pending_objects_due ON blob_pending_objects (delete_after);

-- Makes a stored object visible, in one statement (one round trip; atomic on its own or inside a caller's
-- transaction): takes the object out of the intent log ('lost' when the sweep already took it), locks the
-- address across servers, checks the precondition against what the address holds now, replaces the previous
-- row (its object due for deletion at once) and inserts the new one. A refused or lost object is logged as due
-- at once, so its bytes are always someone's to delete.
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
  p_if_match TEXT
) RETURNS TABLE (outcome TEXT, replaced_object_key TEXT)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  current_id TEXT;
  current_object TEXT;
  current_etag TEXT;
BEGIN
  DELETE FROM blob_pending_objects WHERE object_key = p_object_key;
  IF NOT FOUND THEN
    INSERT INTO blob_pending_objects (object_key, delete_after) VALUES (p_object_key, now())
      ON CONFLICT (object_key) DO UPDATE SET delete_after = now();
    RETURN QUERY SELECT 'lost'::TEXT, NULL::TEXT;
    RETURN;
  END IF;
  PERFORM pg_advisory_xact_lock(hashtextextended(p_lock_key, 7));
  -- A statement after the lock: under READ COMMITTED it sees the row a writer that held the lock committed.
  SELECT b.blob_id, b.object_key, b.meta::json ->> 'etag' INTO current_id, current_object, current_etag
    FROM blobs b WHERE b.tenant_id = p_tenant_id AND b.bucket = p_bucket AND b.key_sort = p_key_sort;
  IF (p_if_none_match AND current_id IS NOT NULL)
     OR (p_if_match IS NOT NULL AND (current_id IS NULL OR current_etag IS DISTINCT FROM p_if_match)) THEN
    INSERT INTO blob_pending_objects (object_key, delete_after) VALUES (p_object_key, now());
    RETURN QUERY SELECT 'refused'::TEXT, NULL::TEXT;
    RETURN;
  END IF;
  IF current_id IS NOT NULL THEN
    DELETE FROM blobs WHERE blob_id = current_id;
    INSERT INTO blob_pending_objects (object_key, delete_after) VALUES (current_object, now())
      ON CONFLICT (object_key) DO UPDATE SET delete_after = now();
  END IF;
  INSERT INTO blobs (blob_id, tenant_id, bucket, key_sort, owner_run_id, content_type, project_id, object_key, meta)
    VALUES (p_blob_id, p_tenant_id, p_bucket, p_key_sort, p_owner_run_id, p_content_type, p_project_id,
            p_object_key, p_meta);
  RETURN QUERY SELECT 'stored'::TEXT, current_object;
END;
$$;
