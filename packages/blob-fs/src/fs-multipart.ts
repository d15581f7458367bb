import { randomUUID } from 'node:crypto';
import type { BlobError, BlobMeta, BlobStorageBinding } from '@kindgi/bindings';
import {
  buildMeta,
  checkAddress,
  checkCompletion,
  isPartNumber,
  metaInputFromInit,
  multipartEtag,
  nameFromKey,
} from '@kindgi/bindings';
import { err, ok, type Result } from '@kindgi/protocol';
import { type BlobDirectory, removeQuietly } from './directory.js';
import { guarded } from './guarded.js';
import type { BlobRows, UploadInfo } from './rows.js';

type MultipartMethods = Pick<
  BlobStorageBinding,
  'initiateMultipartUpload' | 'uploadPart' | 'completeMultipartUpload' | 'abortMultipartUpload' | 'listParts'
>;

/** Multipart uploads on disk: each part a file with a row; completion concatenates them into one object. */
export function multipartOperations(rows: BlobRows, directory: BlobDirectory): MultipartMethods {
  const db = rows.db;
  const find = (tenantId: string, bucket: string, key: string, uploadId: string): Result<UploadInfo, BlobError> => {
    const info = rows.upload(tenantId, uploadId);
    if (info === undefined || info.bucket !== bucket || info.key !== key) {
      return err({ code: 'upload-not-found', message: `upload ${uploadId} does not exist`, uploadId });
    }
    return ok(info);
  };
  const gone = (uploadId: string) =>
    err({ code: 'upload-not-found' as const, message: `upload ${uploadId} was completed or aborted`, uploadId });

  const recordPart = db.transaction((tenantId: string, uploadId: string, part: Parameters<BlobRows['putPart']>[1]) => {
    if (rows.upload(tenantId, uploadId) === undefined) return { exists: false as const };
    return { exists: true as const, replaced: rows.putPart(uploadId, part) };
  });
  const finish = db.transaction((tenantId: string, uploadId: string, meta: BlobMeta) => {
    if (rows.upload(tenantId, uploadId) === undefined) return { exists: false as const };
    const replaced = rows.replace(meta);
    return { exists: true as const, replaced, partFiles: rows.dropUpload(uploadId) };
  });
  const drop = db.transaction((uploadId: string) => rows.dropUpload(uploadId));

  return {
    initiateMultipartUpload: (tenantId, bucket, key, input) =>
      guarded(async () => {
        const checked = checkAddress(bucket, key);
        if (checked.kind === 'err') return checked;
        const uploadId = randomUUID();
        rows.createUpload(tenantId, uploadId, { bucket, key, init: input, createdAt: new Date().toISOString() });
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
        const outcome = recordPart.immediate(tenantId, uploadId, { partNumber, etag, size, file, lastModified });
        if (!outcome.exists) {
          await removeQuietly(directory.partPath(file));
          return gone(uploadId);
        }
        if (outcome.replaced !== undefined) await removeQuietly(directory.partPath(outcome.replaced));
        return ok({ etag, size });
      }),

    completeMultipartUpload: (tenantId, bucket, key, uploadId, parts) =>
      guarded(async () => {
        const found = find(tenantId, bucket, key, uploadId);
        if (found.kind === 'err') return found;
        const stored = new Map(rows.parts(uploadId).map((part) => [part.part_number, part]));
        const checked = checkCompletion(parts, (n) => stored.get(n));
        if (checked.kind === 'err') return checked;
        const chosen = parts.map((part) => stored.get(part.partNumber)!);
        const joined = await directory.concatenate(chosen.map((part) => directory.partPath(part.file)));
        if (joined.kind === 'err') return joined;
        const blobId = randomUUID();
        const target = directory.blobPath(blobId);
        const published = await directory.publish(joined.value.temp, target);
        if (published.kind === 'err') return published;
        const meta = buildMeta(
          { blobId, tenantId, bucket, key },
          metaInputFromInit(found.value.init, nameFromKey(key)),
          {
            size: joined.value.size,
            hash: joined.value.sha256,
            etag: multipartEtag(chosen.map((part) => part.etag)),
            createdAt: new Date().toISOString(),
          },
        );
        const outcome = finish.immediate(tenantId, uploadId, meta);
        if (!outcome.exists) {
          await removeQuietly(target);
          return gone(uploadId);
        }
        if (outcome.replaced !== undefined) await removeQuietly(directory.blobPath(outcome.replaced));
        for (const file of outcome.partFiles) await removeQuietly(directory.partPath(file));
        return ok(meta);
      }),

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
        const parts = rows.parts(uploadId).map((part) => ({
          partNumber: part.part_number,
          etag: part.etag,
          size: part.size,
          lastModified: part.last_modified,
        }));
        return ok({ parts, contentType: found.value.init.contentType });
      }),
  };
}
