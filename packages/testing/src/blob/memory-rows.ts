import {
  type BlobMeta,
  type BlobRowsPort,
  matchesFilter,
  type StoredPart,
  type StoredUpload,
  type UploadAnswer,
  writeConditionsHold,
} from '@kindgi/bindings';
import { TenantState } from './memory-state.js';

/** An upload held in memory; `completed` keeps the answer (and when) for retried completions. */
interface MemoryUpload {
  tenantId: string;
  upload: StoredUpload;
  parts: Map<number, StoredPart>;
  completed?: UploadAnswer & { at: string };
}

/**
 * The rows of the in-memory blob storage. Every method runs without awaiting anything, so each is atomic;
 * what leaves is a copy, so a caller changing an answer cannot change what is stored.
 */
export function memoryRows(): BlobRowsPort {
  const tenants = new Map<string, TenantState>();
  const uploads = new Map<string, MemoryUpload>();
  let sequence = 0;
  const tenant = (tenantId: string): TenantState => {
    const state = tenants.get(tenantId) ?? new TenantState();
    tenants.set(tenantId, state);
    return state;
  };
  const copy = structuredClone;
  const stored = (state: TenantState, where: { blobId: string } | { bucket: string; key: string }) =>
    'blobId' in where ? state.byId.get(where.blobId) : state.at(where.bucket, where.key);
  const upload = (tenantId: string, uploadId: string) => {
    const found = uploads.get(uploadId);
    return found?.tenantId === tenantId ? found : undefined;
  };
  const open = (tenantId: string, uploadId: string) => {
    const found = upload(tenantId, uploadId);
    return found?.completed === undefined ? found : undefined;
  };
  const refsOf = (found: MemoryUpload) => [...found.parts.values()].map((part) => part.ref);
  const store = (meta: BlobMeta, ref: string) =>
    tenant(meta.tenantId).store({ meta: copy(meta), ref, sequence: ++sequence })?.ref;

  return {
    async find(tenantId, where) {
      const blob = stored(tenant(tenantId), where);
      return blob === undefined ? undefined : { meta: copy(blob.meta), ref: blob.ref };
    },
    async commit(meta, written, conditions) {
      if (!writeConditionsHold(tenant(meta.tenantId).at(meta.bucket, meta.key)?.meta, conditions)) {
        return { refused: true };
      }
      const replaced = store(meta, written.ref);
      return replaced === undefined ? { refused: false } : { refused: false, replaced };
    },
    async remove(tenantId, where) {
      const state = tenant(tenantId);
      const blob = stored(state, where);
      if (blob !== undefined) state.remove(blob);
      return blob?.ref;
    },
    async list(tenantId, filter, below, limit) {
      return [...tenant(tenantId).byId.values()]
        .filter((blob) => blob.sequence < below && matchesFilter(blob.meta, filter))
        .sort((a, b) => b.sequence - a.sequence)
        .slice(0, limit)
        .map((blob) => ({ seq: blob.sequence, meta: copy(blob.meta) }));
    },
    async scan(tenantId, bucket, from, limit) {
      const found = tenant(tenantId).buckets.get(bucket)?.scan(from, limit) ?? [];
      return found.map((blob) => ({ key: blob.meta.key, meta: copy(blob.meta) }));
    },

    async createUpload(tenantId, uploadId, created, maxOpen) {
      let open = 0;
      for (const found of uploads.values()) if (found.tenantId === tenantId && !found.completed) open++;
      if (open >= maxOpen) return false;
      uploads.set(uploadId, { tenantId, upload: copy(created), parts: new Map() });
      return true;
    },
    async findUpload(tenantId, uploadId) {
      const found = upload(tenantId, uploadId);
      if (found === undefined) return undefined;
      const { completed } = found;
      return copy({
        upload: found.upload,
        ...(completed ? { completed: { parts: completed.parts, meta: completed.meta } } : {}),
      });
    },
    async parts(uploadId) {
      const parts = [...(uploads.get(uploadId)?.parts.values() ?? [])];
      return copy(parts.sort((a, b) => a.partNumber - b.partNumber));
    },
    async recordPart(tenantId, uploadId, part) {
      const found = open(tenantId, uploadId);
      if (found === undefined) return false;
      const previous = found.parts.get(part.partNumber);
      found.parts.set(part.partNumber, copy(part));
      return { discarded: previous === undefined ? [] : [previous.ref] };
    },
    async completeUpload(tenantId, uploadId, answer, written) {
      const found = upload(tenantId, uploadId);
      if (found === undefined) return { gone: true };
      if (found.completed !== undefined)
        return { completed: copy({ parts: found.completed.parts, meta: found.completed.meta }) };
      const discarded = refsOf(found);
      const replaced = store(answer.meta, written.ref);
      if (replaced !== undefined) discarded.push(replaced);
      found.parts.clear();
      found.completed = { ...copy(answer), at: answer.meta.createdAt };
      return { discarded };
    },
    async abortUpload(tenantId, uploadId) {
      const found = open(tenantId, uploadId);
      if (found === undefined) return false;
      uploads.delete(uploadId);
      return { discarded: refsOf(found) };
    },
    async openUploads(tenantId, bucket) {
      return [...uploads.entries()]
        .filter(([, found]) => found.tenantId === tenantId && found.upload.bucket === bucket && !found.completed)
        .map(([uploadId, found]) => ({ uploadId, upload: copy(found.upload) }));
    },
    async expireUploads(before) {
      const cutoff = before.toISOString();
      const discarded: string[] = [];
      let expired = 0;
      for (const [uploadId, found] of uploads) {
        if ((found.completed?.at ?? found.upload.createdAt) >= cutoff) continue;
        discarded.push(...refsOf(found));
        uploads.delete(uploadId);
        expired++;
      }
      return { expired, discarded };
    },
  };
}
