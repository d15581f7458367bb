import { createHash, randomUUID } from 'node:crypto';
import {
  type BlobError,
  type BlobMeta,
  type BlobMultipartMethods,
  buildMeta,
  checkAddress,
  checkCompletion,
  consumeBody,
  isPartNumber,
  metaInputFromInit,
  multipartEtag,
  nameFromKey,
  type PartInfo,
  pageUploads,
  sameCompletion,
} from '@kindgi/bindings';
import { err, ok, type Result } from '@kindgi/protocol';
import type { MemoryUpload, TenantState } from './memory-state.js';

/** What the multipart operations need from the in-memory binding that holds them. */
export interface MemoryMultipartHost {
  tenant(tenantId: string): TenantState;
  tenants(): Iterable<TenantState>;
  /** Makes a completed upload's object visible. */
  store(state: TenantState, meta: BlobMeta, bytes: Buffer): void;
}

function notFound(uploadId: string): { kind: 'err'; error: BlobError } {
  return err({ code: 'upload-not-found', message: `upload ${uploadId} does not exist`, uploadId });
}

/** Multipart uploads held in memory, with the same rules (shared from `@kindgi/bindings`) as every binding. */
export function memoryMultipart(host: MemoryMultipartHost): BlobMultipartMethods {
  // Completed uploads stay in the map (with `completed` set) so a retried Complete gets the same answer.
  function open(tenantId: string, bucket: string, key: string, uploadId: string): Result<MemoryUpload, BlobError> {
    const found = host.tenant(tenantId).uploads.get(uploadId);
    if (found === undefined || found.completed !== undefined || found.bucket !== bucket || found.key !== key) {
      return notFound(uploadId);
    }
    return ok(found);
  }

  return {
    async initiateMultipartUpload(tenantId, bucket, key, input) {
      const checked = checkAddress(bucket, key);
      if (checked.kind === 'err') return checked;
      const uploadId = randomUUID();
      const upload: MemoryUpload = {
        uploadId,
        bucket,
        key,
        init: structuredClone(input),
        parts: new Map(),
        createdAt: new Date().toISOString(),
      };
      host.tenant(tenantId).uploads.set(uploadId, upload);
      return ok({ uploadId });
    },

    async uploadPart(tenantId, bucket, key, uploadId, partNumber, input) {
      const found = open(tenantId, bucket, key, uploadId);
      if (found.kind === 'err') return found;
      if (!isPartNumber(partNumber)) {
        return err({ code: 'invalid-part', message: `part number ${partNumber} is not in 1..10000`, partNumber });
      }
      const chunks: Buffer[] = [];
      const body = await consumeBody(input.bytes, (chunk) => void chunks.push(Buffer.from(chunk)), input);
      if (body.kind === 'err') return body;
      // The upload may have been completed or aborted while this part streamed.
      const still = open(tenantId, bucket, key, uploadId);
      if (still.kind === 'err') return still;
      const part = { bytes: Buffer.concat(chunks), etag: body.value.md5, size: body.value.size };
      const checksums = input.checksums !== undefined ? { checksums: { ...input.checksums } } : {};
      still.value.parts.set(partNumber, { ...part, lastModified: new Date().toISOString(), ...checksums });
      return ok({ etag: part.etag, size: part.size });
    },

    async completeMultipartUpload(tenantId, bucket, key, uploadId, parts, options) {
      const state = host.tenant(tenantId);
      const existing = state.uploads.get(uploadId);
      if (existing?.completed !== undefined && existing.bucket === bucket && existing.key === key) {
        return sameCompletion(existing.completed.parts, parts)
          ? ok(structuredClone(existing.completed.meta))
          : notFound(uploadId);
      }
      const found = open(tenantId, bucket, key, uploadId);
      if (found.kind === 'err') return found;
      const stored = found.value.parts;
      const checked = checkCompletion(parts, (n) => stored.get(n));
      if (checked.kind === 'err') return checked;
      const chosen = parts.map((part) => stored.get(part.partNumber)!);
      const bytes = Buffer.concat(chosen.map((part) => part.bytes));
      const input = metaInputFromInit(found.value.init, nameFromKey(key));
      if (options?.checksums !== undefined) input.checksums = options.checksums;
      const meta = buildMeta({ blobId: randomUUID(), tenantId, bucket, key }, input, {
        size: bytes.length,
        hash: createHash('sha256').update(bytes).digest('hex'),
        etag: multipartEtag(chosen.map((part) => part.etag)),
        createdAt: new Date().toISOString(),
      });
      found.value.parts.clear();
      found.value.completed = {
        parts: parts.map(({ partNumber, etag }) => ({ partNumber, etag })),
        meta: structuredClone(meta),
        at: meta.createdAt,
      };
      host.store(state, meta, bytes);
      return ok(structuredClone(meta));
    },

    async abortMultipartUpload(tenantId, bucket, key, uploadId) {
      const found = open(tenantId, bucket, key, uploadId);
      if (found.kind === 'err') return found;
      host.tenant(tenantId).uploads.delete(uploadId);
      return ok({ aborted: true as const });
    },

    async listParts(tenantId, bucket, key, uploadId) {
      const found = open(tenantId, bucket, key, uploadId);
      if (found.kind === 'err') return found;
      const parts: PartInfo[] = [...found.value.parts.entries()]
        .sort(([a], [b]) => a - b)
        .map(([partNumber, part]) => ({
          partNumber,
          etag: part.etag,
          size: part.size,
          lastModified: part.lastModified,
          ...(part.checksums !== undefined ? { checksums: { ...part.checksums } } : {}),
        }));
      const { contentType, checksumAlgorithm } = found.value.init;
      return ok({ parts, contentType, ...(checksumAlgorithm !== undefined ? { checksumAlgorithm } : {}) });
    },

    async listMultipartUploads(tenantId, bucket, input) {
      const pending = [...host.tenant(tenantId).uploads.values()].filter(
        (upload) => upload.bucket === bucket && upload.completed === undefined,
      );
      return ok(
        pageUploads(
          pending.map((upload) => ({
            key: upload.key,
            uploadId: upload.uploadId,
            initiated: upload.createdAt,
            ...(upload.init.checksumAlgorithm !== undefined
              ? { checksumAlgorithm: upload.init.checksumAlgorithm }
              : {}),
          })),
          input,
        ),
      );
    },

    async expireMultipartUploads(before) {
      const cutoff = before.toISOString();
      let expired = 0;
      for (const state of host.tenants()) {
        for (const [uploadId, upload] of state.uploads) {
          if ((upload.completed?.at ?? upload.createdAt) < cutoff) {
            state.uploads.delete(uploadId);
            expired++;
          }
        }
      }
      return ok({ expired });
    },
  };
}
