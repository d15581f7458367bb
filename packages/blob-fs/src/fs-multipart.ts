import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import type { BlobChecksums, BlobError, BlobMeta, CompletedPart } from '@kindgi/bindings';
import {
  type BlobMultipartMethods,
  buildMeta,
  checkAddress,
  checkCompletion,
  clampMaxUploads,
  isPartNumber,
  metaInputFromInit,
  multipartEtag,
  nameFromKey,
  sameCompletion,
} from '@kindgi/bindings';
import { err, ok, type Result } from '@kindgi/protocol';
import { type BlobDirectory, removeQuietly } from './directory.js';
import { guarded } from './guarded.js';
import type { BlobRows } from './rows.js';
import type { UploadInfo, UploadRows } from './upload-rows.js';

const notFound = (uploadId: string) =>
  err({ code: 'upload-not-found' as const, message: `upload ${uploadId} does not exist`, uploadId });

/**
 * Multipart uploads on disk: each part a file with a row; completion concatenates them into one object and
 * keeps the upload's row (without parts) as the answer to a retried completion until it expires.
 */
export function multipartOperations(
  rows: BlobRows,
  uploads: UploadRows,
  directory: BlobDirectory,
): BlobMultipartMethods {
  const db = rows.db;
  const find = (tenantId: string, bucket: string, key: string, uploadId: string): Result<UploadInfo, BlobError> => {
    const info = uploads.upload(tenantId, uploadId);
    if (info === undefined || info.completed !== undefined || info.bucket !== bucket || info.key !== key) {
      return notFound(uploadId);
    }
    return ok(info);
  };
  /** A completed upload's kept answer, when `parts` repeats the list it completed with. */
  const retried = (tenantId: string, bucket: string, key: string, uploadId: string, parts: CompletedPart[]) => {
    const info = uploads.upload(tenantId, uploadId);
    if (info?.completed === undefined || info.bucket !== bucket || info.key !== key) return undefined;
    return sameCompletion(info.completed.parts, parts) ? ok(info.completed.meta) : notFound(uploadId);
  };

  const recordPart = db.transaction(
    (tenantId: string, uploadId: string, part: Parameters<UploadRows['putPart']>[1]) => {
      const info = uploads.upload(tenantId, uploadId);
      if (info === undefined || info.completed !== undefined) return { exists: false as const };
      return { exists: true as const, replaced: uploads.putPart(uploadId, part) };
    },
  );
  const finish = db.transaction((tenantId: string, uploadId: string, meta: BlobMeta, parts: CompletedPart[]) => {
    const info = uploads.upload(tenantId, uploadId);
    if (info === undefined || info.completed !== undefined) return { exists: false as const };
    const replaced = rows.replace(meta);
    const completed = { parts: parts.map(({ partNumber, etag }) => ({ partNumber, etag })), meta, at: meta.createdAt };
    return { exists: true as const, replaced, partFiles: uploads.completeUpload(uploadId, { ...info, completed }) };
  });
  const drop = db.transaction((uploadId: string) => uploads.dropUpload(uploadId));

  async function complete(
    tenantId: string,
    bucket: string,
    key: string,
    uploadId: string,
    parts: CompletedPart[],
    checksums: BlobChecksums | undefined,
  ): Promise<Result<BlobMeta, BlobError>> {
    const again = retried(tenantId, bucket, key, uploadId, parts);
    if (again !== undefined) return again;
    const found = find(tenantId, bucket, key, uploadId);
    if (found.kind === 'err') return found;
    const stored = new Map(uploads.parts(uploadId).map((part) => [part.part_number, part]));
    const checked = checkCompletion(parts, (n) => stored.get(n));
    if (checked.kind === 'err') return checked;
    const chosen = parts.map((part) => stored.get(part.partNumber)!);
    const joined = await directory.concatenate(chosen.map((part) => directory.partPath(part.file)));
    if (joined.kind === 'err') return joined;
    const blobId = randomUUID();
    const target = directory.blobPath(blobId);
    const published = await directory.publish(joined.value.temp, target);
    if (published.kind === 'err') return published;
    const input = metaInputFromInit(found.value.init, nameFromKey(key));
    if (checksums !== undefined) input.checksums = checksums;
    const meta = buildMeta({ blobId, tenantId, bucket, key }, input, {
      size: joined.value.size,
      hash: joined.value.sha256,
      etag: multipartEtag(chosen.map((part) => part.etag)),
      createdAt: new Date().toISOString(),
    });
    const outcome = finish.immediate(tenantId, uploadId, meta, parts);
    if (!outcome.exists) {
      await removeQuietly(target);
      // A concurrent identical Complete won the race: its answer is this one's too.
      return retried(tenantId, bucket, key, uploadId, parts) ?? notFound(uploadId);
    }
    if (outcome.replaced !== undefined) await removeQuietly(directory.blobPath(outcome.replaced));
    for (const file of outcome.partFiles) await removeQuietly(directory.partPath(file));
    return ok(meta);
  }

  return {
    initiateMultipartUpload: (tenantId, bucket, key, input) =>
      guarded(async () => {
        const checked = checkAddress(bucket, key);
        if (checked.kind === 'err') return checked;
        const uploadId = randomUUID();
        uploads.createUpload(tenantId, uploadId, { bucket, key, init: input, createdAt: new Date().toISOString() });
        return ok({ uploadId });
      }),

    uploadPart: (tenantId, bucket, key, uploadId, partNumber, input) =>
      guarded(async () => {
        const found = find(tenantId, bucket, key, uploadId);
        if (found.kind === 'err') return found;
        if (!isPartNumber(partNumber)) {
          return err({ code: 'invalid-part', message: `part number ${partNumber} is not in 1..10000`, partNumber });
        }
        const received = await directory.receive(input.bytes, input);
        if (received.kind === 'err') return received;
        const file = `${uploadId}.${partNumber}.${randomUUID()}`;
        const published = await directory.publish(received.value.temp, directory.partPath(file));
        if (published.kind === 'err') return published;
        const { md5: etag, size } = received.value;
        const lastModified = new Date().toISOString();
        const part = { partNumber, etag, size, file, lastModified };
        const outcome = recordPart.immediate(
          tenantId,
          uploadId,
          input.checksums !== undefined ? { ...part, checksums: input.checksums } : part,
        );
        if (!outcome.exists) {
          await removeQuietly(directory.partPath(file));
          return notFound(uploadId);
        }
        if (outcome.replaced !== undefined) await removeQuietly(directory.partPath(outcome.replaced));
        return ok({ etag, size });
      }),

    completeMultipartUpload: (tenantId, bucket, key, uploadId, parts, options) =>
      guarded(() => complete(tenantId, bucket, key, uploadId, parts, options?.checksums)),

    abortMultipartUpload: (tenantId, bucket, key, uploadId) =>
      guarded(async () => {
        const found = find(tenantId, bucket, key, uploadId);
        if (found.kind === 'err') return found;
        for (const file of drop.immediate(uploadId)) await removeQuietly(directory.partPath(file));
        return ok({ aborted: true as const });
      }),

    listParts: (tenantId, bucket, key, uploadId) =>
      guarded(async () => {
        const found = find(tenantId, bucket, key, uploadId);
        if (found.kind === 'err') return found;
        const parts = uploads.parts(uploadId).map((part) => ({
          partNumber: part.part_number,
          etag: part.etag,
          size: part.size,
          lastModified: part.last_modified,
          ...(part.checksums !== null ? { checksums: JSON.parse(part.checksums) as BlobChecksums } : {}),
        }));
        const { contentType, checksumAlgorithm } = found.value.init;
        return ok({ parts, contentType, ...(checksumAlgorithm !== undefined ? { checksumAlgorithm } : {}) });
      }),

    listMultipartUploads: (tenantId, bucket, input) =>
      guarded(async () => {
        const found = uploads.openUploads(tenantId, bucket, input);
        const max = clampMaxUploads(input.maxUploads);
        return ok({ uploads: found.slice(0, max), isTruncated: found.length > max });
      }),

    expireMultipartUploads: (before) => guarded(async () => ok({ expired: expireUploads(uploads, directory, before) })),
  };
}

/**
 * Aborts uploads initiated before `before` and forgets completed ones' kept answers older than it. Synchronous
 * (rows, then part files) so the sweep at open can run it before the storage serves anything.
 */
export function expireUploads(uploads: UploadRows, directory: BlobDirectory, before: Date): number {
  const ids = uploads.expired(before.toISOString());
  const drop = uploads.db.transaction((uploadId: string) => uploads.dropUpload(uploadId));
  for (const uploadId of ids) {
    for (const file of drop.immediate(uploadId)) rmSync(directory.partPath(file), { force: true });
  }
  return ids.length;
}
