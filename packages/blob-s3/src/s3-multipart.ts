import { randomUUID } from 'node:crypto';
import type { BlobError, CompletedPart } from '@kindgi/bindings';
import {
  type BlobMultipartMethods,
  buildMeta,
  checkAddress,
  checkCompletion,
  isPartNumber,
  metaInputFromInit,
  multipartEtag,
  nameFromKey,
  preconditionFailed,
  sameCompletion,
} from '@kindgi/bindings';
import { err, ok, type Result } from '@kindgi/protocol';
import {
  abortUpload,
  type CompletedUpload,
  completeUpload,
  createUpload,
  expireUploads,
  findUpload,
  listUploadParts,
  listUploads,
  type PartRecord,
  recordPart,
} from '@kindgi/store-postgres';
import { abandon, discardNow, guarded, type StorageContext, writePending } from './context.js';
import { blobObjectKey } from './s3-storage.js';

/** Raised inside the assembled body when a part's object cannot be read: the store's fault, not a client's. */
class PartUnreadable extends Error {}

/** The chosen parts' bytes, read from the store one after another. */
async function* partsInOrder(context: StorageContext, parts: readonly PartRecord[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) {
    const stream = await context.store.read(part.objectKey, 0, part.size - 1);
    if (stream === null) throw new PartUnreadable(`part ${part.partNumber} is missing from the object store`);
    for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) yield chunk;
  }
}

/**
 * Multipart uploads: each part is an object of its own with a row; completion streams the chosen parts, in
 * order, into one new object (hashing it whole for the sha256 the metadata keeps), then commits it and drops
 * the upload in one transaction.
 */
export function multipartOperations(context: StorageContext): BlobMultipartMethods {
  const { pool } = context;
  const notFound = (uploadId: string) =>
    err({ code: 'upload-not-found' as const, message: `upload ${uploadId} does not exist`, uploadId });
  // An upload in progress at this address; a completed one is found only by a retried completion.
  const find = async (tenantId: string, bucket: string, key: string, uploadId: string) => {
    const found = await findUpload(pool, tenantId, uploadId);
    if (
      found === undefined ||
      found.completed !== undefined ||
      found.info.bucket !== bucket ||
      found.info.key !== key
    ) {
      return notFound(uploadId);
    }
    return ok(found.info);
  };
  const answerRetry = (completed: CompletedUpload, parts: CompletedPart[], uploadId: string) =>
    sameCompletion(completed.parts, parts) ? ok(completed.meta) : notFound(uploadId);
  const gone = (uploadId: string) =>
    err({ code: 'upload-not-found' as const, message: `upload ${uploadId} was completed or aborted`, uploadId });

  async function assemble(
    chosen: PartRecord[],
  ): Promise<Result<{ objectKey: string; blobId: string; size: number; sha256: string }, BlobError>> {
    const blobId = randomUUID();
    const objectKey = blobObjectKey(context, blobId);
    const expected = chosen.reduce((sum, part) => sum + part.size, 0);
    const written = await writePending(context, objectKey, partsInOrder(context, chosen), { size: expected });
    if (written.kind === 'err') {
      // A part that could not be read is a storage failure, never a client's broken body.
      if (written.error.code === 'blob-body-failed') {
        return err({ code: 'blob-storage-error', message: written.error.message, cause: written.error.cause });
      }
      return written;
    }
    return ok({ objectKey, blobId, size: written.value.size, sha256: written.value.sha256 });
  }

  return {
    initiateMultipartUpload: (tenantId, bucket, key, input) =>
      guarded(async () => {
        const checked = checkAddress(bucket, key);
        if (checked.kind === 'err') return checked;
        const uploadId = randomUUID();
        await createUpload(pool, tenantId, uploadId, { bucket, key, init: input, createdAt: new Date().toISOString() });
        return ok({ uploadId });
      }),

    uploadPart: (tenantId, bucket, key, uploadId, partNumber, input) =>
      guarded(async () => {
        const found = await find(tenantId, bucket, key, uploadId);
        if (found.kind === 'err') return found;
        if (!isPartNumber(partNumber)) {
          return err({ code: 'invalid-part', message: `part number ${partNumber} is not in 1..10000`, partNumber });
        }
        const objectKey = `${context.prefix}parts/${uploadId}/${partNumber}-${randomUUID()}`;
        const written = await writePending(context, objectKey, input.bytes, input);
        if (written.kind === 'err') return written;
        const { md5: etag, size } = written.value;
        const lastModified = new Date().toISOString();
        // Checksums sent as a trailer are known only now that the body has ended.
        const checksums = input.checksums !== undefined ? { checksums: { ...input.checksums } } : {};
        const part = { partNumber, etag, size, objectKey, lastModified, ...checksums };
        const outcome = await recordPart(pool, tenantId, uploadId, part).catch(async (cause: unknown) => {
          await abandon(context, objectKey, cause);
          throw cause;
        });
        if (outcome === false) {
          await discardNow(context, [objectKey]);
          return gone(uploadId);
        }
        await discardNow(context, outcome.discarded);
        return ok({ etag, size });
      }),

    completeMultipartUpload: (tenantId, bucket, key, uploadId, parts, options) =>
      guarded(async () => {
        const existing = await findUpload(pool, tenantId, uploadId);
        if (existing?.completed !== undefined && existing.info.bucket === bucket && existing.info.key === key) {
          return answerRetry(existing.completed, parts, uploadId);
        }
        const found = await find(tenantId, bucket, key, uploadId);
        if (found.kind === 'err') return found;
        const stored = new Map((await listUploadParts(pool, uploadId)).map((part) => [part.partNumber, part]));
        const checked = checkCompletion(parts, (n) => stored.get(n));
        if (checked.kind === 'err') return checked;
        const chosen = parts.map((part) => stored.get(part.partNumber)!);
        const assembled = await assemble(chosen);
        if (assembled.kind === 'err') return assembled;
        const { objectKey, blobId, size, sha256 } = assembled.value;
        const input = metaInputFromInit(found.value.init, nameFromKey(key));
        if (options?.checksums !== undefined) input.checksums = options.checksums;
        const meta = buildMeta({ blobId, tenantId, bucket, key }, input, {
          size,
          hash: sha256,
          etag: multipartEtag(chosen.map((part) => part.etag)),
          createdAt: new Date().toISOString(),
        });
        const completion = { parts: parts.map(({ partNumber, etag }) => ({ partNumber, etag })), meta };
        const outcome = await completeUpload(pool, uploadId, completion, objectKey).catch(async (cause: unknown) => {
          await abandon(context, objectKey, cause);
          throw cause;
        });
        if ('gone' in outcome || 'completed' in outcome) {
          // An abort or another completion won the race: this assembled copy is never visible.
          await discardNow(context, [objectKey]);
          return 'gone' in outcome ? gone(uploadId) : answerRetry(outcome.completed, parts, uploadId);
        }
        if (outcome.refused) {
          await discardNow(context, [objectKey]);
          return err(preconditionFailed());
        }
        await discardNow(context, outcome.discarded);
        return ok(meta);
      }),

    abortMultipartUpload: (tenantId, bucket, key, uploadId) =>
      guarded(async () => {
        const found = await find(tenantId, bucket, key, uploadId);
        if (found.kind === 'err') return found;
        const dropped = await abortUpload(pool, tenantId, uploadId);
        if (dropped === false) return gone(uploadId);
        await discardNow(context, dropped.discarded);
        return ok({ aborted: true as const });
      }),

    listParts: (tenantId, bucket, key, uploadId) =>
      guarded(async () => {
        const found = await find(tenantId, bucket, key, uploadId);
        if (found.kind === 'err') return found;
        const parts = (await listUploadParts(pool, uploadId)).map(
          ({ partNumber, etag, size, lastModified, checksums }) => ({
            partNumber,
            etag,
            size,
            lastModified,
            ...(checksums !== undefined ? { checksums } : {}),
          }),
        );
        const { contentType, checksumAlgorithm } = found.value.init;
        return ok({ parts, contentType, ...(checksumAlgorithm !== undefined ? { checksumAlgorithm } : {}) });
      }),

    listMultipartUploads: (tenantId, bucket, input) =>
      guarded(async () => ok(await listUploads(pool, tenantId, bucket, input))),

    expireMultipartUploads: (before) =>
      guarded(async () => {
        const { expired, discarded } = await expireUploads(pool, before);
        await discardNow(context, discarded);
        return ok({ expired });
      }),
  };
}
