import { randomUUID } from 'node:crypto';
import { err, ok, type Result } from '@kindgi/protocol';
import { checkAddress, checkCompletion, isPartNumber, multipartEtag, nameFromKey } from '../blob-rules/keys.js';
import { buildMeta, metaInputFromInit } from '../blob-rules/meta.js';
import { pageUploads, sameCompletion, uploadChecksumAttributes } from '../blob-rules/uploads.js';
import type {
  BlobChecksums,
  BlobError,
  BlobMeta,
  BlobMultipartMethods,
  CompletedPart,
  UploadPartInput,
} from '../blob-storage.js';
import { committing, guarded, uploadNotFound } from './guard.js';
import type { BlobBytesPort, BlobStoragePorts, StoredPart, StoredUpload, UploadAnswer, WrittenBytes } from './ports.js';

/** How many multipart uploads one tenant may have in progress at once, unless the storage is told otherwise. */
export const DEFAULT_MAX_OPEN_UPLOADS_PER_TENANT = 1000;

/** Limits a storage puts on its tenants. */
export interface BlobStorageLimits {
  /** Uploads in progress per tenant (default `DEFAULT_MAX_OPEN_UPLOADS_PER_TENANT`); past it, `storage-busy`. */
  maxOpenUploadsPerTenant?: number;
}

/** A tenant at its cap: retried later (once some of its uploads complete, abort or expire), never stored. */
function tooManyUploads(maxOpen: number): Result<never, BlobError> {
  return err({
    code: 'storage-busy',
    message: `this tenant has ${maxOpen} multipart uploads in progress, the most it may have; complete or abort some`,
    retryAfterSeconds: 5,
  });
}

/** The chosen parts' bytes, read one after another. */
async function* partsInOrder(bytes: BlobBytesPort, parts: readonly StoredPart[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) {
    const stream = await bytes.read(part.ref, 0, part.size - 1);
    if (stream === null) throw new Error(`part ${part.partNumber} is missing from storage`);
    for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) yield chunk;
  }
}

/**
 * Multipart uploads over the ports: each part is written like an object and recorded with its upload;
 * completion streams the chosen parts, in order, into one new object (hashed whole for the sha256 the
 * metadata keeps), then commits it, drops the parts and keeps the answer for retries in one step of the rows.
 */
export function multipartOperations(
  { rows, bytes }: BlobStoragePorts,
  limits: BlobStorageLimits = {},
): BlobMultipartMethods {
  const maxOpen = limits.maxOpenUploadsPerTenant ?? DEFAULT_MAX_OPEN_UPLOADS_PER_TENANT;
  // An upload in progress at this address; a completed one is found only by a retried completion.
  async function find(tenantId: string, bucket: string, key: string, uploadId: string) {
    const found = await rows.findUpload(tenantId, uploadId);
    const { upload, completed } = found ?? {};
    if (upload === undefined || completed !== undefined || upload.bucket !== bucket || upload.key !== key) {
      return uploadNotFound(uploadId);
    }
    return ok(upload);
  }
  const answer = (completed: UploadAnswer, parts: CompletedPart[], uploadId: string) =>
    sameCompletion(completed.parts, parts) ? ok(completed.meta) : uploadNotFound(uploadId);

  async function uploadPart(tenantId: string, uploadId: string, partNumber: number, input: UploadPartInput) {
    if (!isPartNumber(partNumber)) {
      return err({
        code: 'invalid-part' as const,
        message: `part number ${partNumber} is not in 1..10000`,
        partNumber,
      });
    }
    const written = await bytes.write({ kind: 'part', uploadId, partNumber }, input.bytes, input);
    if (written.kind === 'err') return written;
    const { ref, md5: etag, size } = written.value;
    // Checksums sent as a trailer are known only now that the body has ended.
    const checksums = input.checksums !== undefined ? { checksums: { ...input.checksums } } : {};
    const part = { partNumber, etag, size, ref, lastModified: new Date().toISOString(), ...checksums };
    const outcome = await committing(bytes, ref, () => rows.recordPart(tenantId, uploadId, part));
    if (outcome === false) {
      // Completed or aborted while the part streamed.
      await bytes.discard([ref]);
      return uploadNotFound(uploadId);
    }
    await bytes.discard(outcome.discarded);
    return ok({ etag, size });
  }

  async function assemble(blobId: string, chosen: StoredPart[]): Promise<Result<WrittenBytes, BlobError>> {
    const size = chosen.reduce((sum, part) => sum + part.size, 0);
    const written = await bytes.write({ kind: 'assembly', blobId }, partsInOrder(bytes, chosen), { size });
    // A part that could not be read is a storage failure, never a client's broken body.
    if (written.kind === 'err' && written.error.code === 'blob-body-failed') {
      return err({ code: 'blob-storage-error', message: written.error.message, cause: written.error.cause });
    }
    return written;
  }

  async function complete(
    tenantId: string,
    bucket: string,
    key: string,
    uploadId: string,
    parts: CompletedPart[],
    checksums: BlobChecksums | undefined,
  ): Promise<Result<BlobMeta, BlobError>> {
    const found = await rows.findUpload(tenantId, uploadId);
    if (found === undefined || found.upload.bucket !== bucket || found.upload.key !== key) {
      return uploadNotFound(uploadId);
    }
    if (found.completed !== undefined) return answer(found.completed, parts, uploadId);
    const stored = new Map((await rows.parts(uploadId)).map((part) => [part.partNumber, part]));
    const checked = checkCompletion(parts, (n) => stored.get(n));
    if (checked.kind === 'err') return checked;
    const chosen = parts.map((part) => stored.get(part.partNumber)!);
    const blobId = randomUUID();
    const written = await assemble(blobId, chosen);
    if (written.kind === 'err') return written;
    const input = metaInputFromInit(found.upload.init, nameFromKey(key));
    if (checksums !== undefined) input.checksums = checksums;
    const meta = buildMeta({ blobId, tenantId, bucket, key }, input, {
      size: written.value.size,
      hash: written.value.sha256,
      etag: multipartEtag(chosen.map((part) => part.etag)),
      createdAt: new Date().toISOString(),
    });
    const completion = { parts: parts.map(({ partNumber, etag }) => ({ partNumber, etag })), meta };
    const { ref } = written.value;
    const outcome = await committing(bytes, ref, () =>
      rows.completeUpload(tenantId, uploadId, completion, written.value),
    );
    if (!('discarded' in outcome)) {
      // An abort or another completion won the race: this assembled copy is never visible.
      await bytes.discard([ref]);
      return 'gone' in outcome ? uploadNotFound(uploadId) : answer(outcome.completed, parts, uploadId);
    }
    await bytes.discard(outcome.discarded);
    return ok(meta);
  }

  return {
    initiateMultipartUpload: (tenantId, bucket, key, init) =>
      guarded(async () => {
        const checked = checkAddress(bucket, key);
        if (checked.kind === 'err') return checked;
        const uploadId = randomUUID();
        const upload: StoredUpload = { bucket, key, init, createdAt: new Date().toISOString() };
        if (!(await rows.createUpload(tenantId, uploadId, upload, maxOpen))) return tooManyUploads(maxOpen);
        return ok({ uploadId });
      }),
    uploadPart: (tenantId, bucket, key, uploadId, partNumber, input) =>
      guarded(async () => {
        const found = await find(tenantId, bucket, key, uploadId);
        return found.kind === 'err' ? found : uploadPart(tenantId, uploadId, partNumber, input);
      }),
    completeMultipartUpload: (tenantId, bucket, key, uploadId, parts, options) =>
      guarded(() => complete(tenantId, bucket, key, uploadId, parts, options?.checksums)),
    abortMultipartUpload: (tenantId, bucket, key, uploadId) =>
      guarded(async () => {
        const found = await find(tenantId, bucket, key, uploadId);
        if (found.kind === 'err') return found;
        const dropped = await rows.abortUpload(tenantId, uploadId);
        if (dropped === false) return uploadNotFound(uploadId);
        await bytes.discard(dropped.discarded);
        return ok({ aborted: true as const });
      }),
    listParts: (tenantId, bucket, key, uploadId) =>
      guarded(async () => {
        const found = await find(tenantId, bucket, key, uploadId);
        if (found.kind === 'err') return found;
        const parts = (await rows.parts(uploadId)).map(({ ref: _ref, ...part }) => part);
        return ok({ parts, contentType: found.value.init.contentType, ...uploadChecksumAttributes(found.value.init) });
      }),
    listMultipartUploads: (tenantId, bucket, input) =>
      guarded(async () => {
        const open = await rows.openUploads(tenantId, bucket, input);
        const summaries = open.map(({ uploadId, upload }) => ({
          key: upload.key,
          uploadId,
          initiated: upload.createdAt,
          ...uploadChecksumAttributes(upload.init),
        }));
        return ok(pageUploads(summaries, input));
      }),
    expireMultipartUploads: (before) =>
      guarded(async () => {
        const { expired, discarded } = await rows.expireUploads(before);
        await bytes.discard(discarded);
        return ok({ expired });
      }),
  };
}
