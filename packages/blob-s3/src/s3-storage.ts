import { randomUUID } from 'node:crypto';
import {
  ARTIFACTS_BUCKET,
  type BlobError,
  type BlobMeta,
  type BlobPutInput,
  type BlobReadResult,
  type BlobStorageBinding,
  type ByteRange,
  buildMeta,
  checkAddress,
  clampListLimit,
  decodeListCursor,
  encodeListCursor,
  keyNotFound,
  normalizeEtag,
  preconditionFailed,
  writeConditionsHold,
} from '@kindgi/bindings';
import { err, ok, type Result } from '@kindgi/protocol';
import {
  commitObject,
  listObjects,
  listObjectsByPrefix,
  objectAt,
  objectById,
  removeObject,
} from '@kindgi/store-postgres';
import { abandon, discardNow, guarded, type StorageContext, storageError, writePending } from './context.js';
import { multipartOperations } from './s3-multipart.js';

type ObjectMethods = Omit<BlobStorageBinding, keyof ReturnType<typeof multipartOperations>>;

/** The object name of a blob's bytes in the bucket. */
export function blobObjectKey(context: StorageContext, blobId: string): string {
  return `${context.prefix}blobs/${blobId}`;
}

/** Whole objects: written to the store, then made visible by one Postgres transaction. */
export function objectOperations(context: StorageContext): ObjectMethods {
  const { pool, store } = context;

  async function write(tenantId: string, bucket: string, key: string | undefined, input: BlobPutInput) {
    const blobId = randomUUID();
    const address = key ?? blobId;
    const checked = checkAddress(bucket, address);
    if (checked.kind === 'err') return checked;
    // Refusing early spares the upload; the check that counts runs again under the address lock.
    if (input.ifNoneMatch !== undefined || input.ifMatch !== undefined) {
      const current = await objectAt(pool, tenantId, bucket, address);
      if (!writeConditionsHold(current?.meta, input)) return err(preconditionFailed());
    }
    const objectKey = blobObjectKey(context, blobId);
    const written = await writePending(context, objectKey, input.bytes, input);
    if (written.kind === 'err') return written;
    const meta = buildMeta({ blobId, tenantId, bucket, key: address }, input, {
      size: written.value.size,
      hash: written.value.sha256,
      etag: written.value.md5,
      createdAt: new Date().toISOString(),
    });
    let outcome: Awaited<ReturnType<typeof commitObject>>;
    try {
      outcome = await commitObject(pool, meta, objectKey, {
        ifNoneMatch: input.ifNoneMatch === '*',
        ...(input.ifMatch !== undefined ? { ifMatch: normalizeEtag(input.ifMatch) } : {}),
      });
    } catch (cause) {
      // Not committed: the bytes stay in the intent log and the sweep removes them.
      await abandon(context, objectKey, cause);
      return storageError(cause);
    }
    if (outcome.refused) {
      await discardNow(context, [objectKey]);
      return err(preconditionFailed());
    }
    if (outcome.replacedObjectKey !== undefined) await discardNow(context, [outcome.replacedObjectKey]);
    return ok(meta);
  }

  async function read(
    lookup: () => Promise<{ meta: BlobMeta; objectKey: string } | undefined>,
    range: ByteRange | undefined,
    missing: BlobError,
  ): Promise<Result<BlobReadResult, BlobError>> {
    // A replace or delete between the row lookup and the GET removes the object: look again.
    for (let attempt = 0; attempt < 3; attempt++) {
      const found = await lookup();
      if (found === undefined) break;
      const { meta, objectKey } = found;
      const start = Math.max(0, range?.start ?? 0);
      const end = Math.min(range?.end ?? meta.size - 1, meta.size - 1);
      const stream = await store.read(objectKey, start, end);
      if (stream !== null) return ok({ meta, stream });
    }
    return err(missing);
  }

  async function remove(tenantId: string, where: { blobId: string } | { bucket: string; key: string }) {
    const objectKey = await removeObject(pool, tenantId, where);
    if (objectKey === undefined) return ok({ deleted: false });
    await discardNow(context, [objectKey]);
    return ok({ deleted: true });
  }

  return {
    put: (tenantId, input) => guarded(() => write(tenantId, ARTIFACTS_BUCKET, undefined, input)),
    putByKey: (tenantId, bucket, key, input) => guarded(() => write(tenantId, bucket, key, input)),
    get: (tenantId, blobId, options) =>
      guarded(() =>
        read(() => objectById(pool, tenantId, blobId), options?.range, {
          code: 'blob-not-found',
          message: `blob ${blobId} does not exist`,
          blobId,
        }),
      ),
    getByKey: (tenantId, bucket, key, options) =>
      guarded(() => read(() => objectAt(pool, tenantId, bucket, key), options?.range, keyNotFound(bucket, key))),
    head: (tenantId, blobId) => guarded(async () => ok((await objectById(pool, tenantId, blobId))?.meta ?? null)),
    headByKey: (tenantId, bucket, key) =>
      guarded(async () => ok((await objectAt(pool, tenantId, bucket, key))?.meta ?? null)),
    delete: (tenantId, blobId) => guarded(() => remove(tenantId, { blobId })),
    deleteByKey: (tenantId, bucket, key) => guarded(() => remove(tenantId, { bucket, key })),
    list: (tenantId, filter, cursor, limit) =>
      guarded(async () => {
        let below = Number.MAX_SAFE_INTEGER;
        if (cursor !== undefined) {
          const decoded = decodeListCursor(cursor);
          if (decoded === undefined) return err({ code: 'invalid-key', message: 'the list cursor is not valid' });
          below = decoded;
        }
        const size = clampListLimit(limit);
        const found = await listObjects(pool, tenantId, filter, below, size + 1);
        const page = found.slice(0, size);
        const data = page.map((row) => row.meta);
        const last = page.at(-1);
        return ok(
          found.length > size && last !== undefined ? { data, nextCursor: encodeListCursor(last.seq) } : { data },
        );
      }),
    listByPrefix: (tenantId, bucket, input) => guarded(() => listObjectsByPrefix(pool, tenantId, bucket, input)),
  };
}

/** Every method of the binding. */
export function storageOperations(context: StorageContext): BlobStorageBinding {
  return { ...objectOperations(context), ...multipartOperations(context) };
}
