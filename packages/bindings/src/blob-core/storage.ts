import { randomUUID } from 'node:crypto';
import { err, ok, type Result } from '@kindgi/protocol';
import { keyNotFound, preconditionFailed, writeConditionsHold } from '../blob-rules/conditions.js';
import { checkAddress } from '../blob-rules/keys.js';
import { buildMeta, clampListLimit, decodeListCursor, encodeListCursor } from '../blob-rules/meta.js';
import {
  ARTIFACTS_BUCKET,
  type BlobError,
  type BlobMeta,
  type BlobPutInput,
  type BlobReadResult,
  type BlobStorageBinding,
  type ByteRange,
} from '../blob-storage.js';
import { committing, guarded } from './guard.js';
import { type BlobStorageLimits, multipartOperations } from './multipart.js';
import type { BlobStoragePorts, ObjectWhere } from './ports.js';
import { listByPrefixOverScan } from './scan-listing.js';

/** Bytes already in memory as a web stream (one chunk: small objects only). */
function bufferStream(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      if (bytes.byteLength > 0) controller.enqueue(bytes);
      controller.close();
    },
  });
}

/**
 * A `BlobStorageBinding` over a bytes port and a rows port: the one implementation of the blob semantics
 * (addressing, preconditions, body checks, metadata, commit and replace, listing, multipart, read retries).
 * A body is written and verified in full before the rows commit it, so an object becomes visible only
 * once every check passed; bytes the rows stop referencing are discarded after the commit. `limits` caps
 * what one tenant may hold open (multipart uploads in progress).
 */
export function createBlobStorage(ports: BlobStoragePorts, limits: BlobStorageLimits = {}): BlobStorageBinding {
  const { rows, bytes } = ports;

  async function write(tenantId: string, bucket: string, key: string | undefined, input: BlobPutInput) {
    const blobId = randomUUID();
    const address = key ?? blobId;
    const checked = checkAddress(bucket, address);
    if (checked.kind === 'err') return checked;
    // Refusing early spares the body; the check that counts runs again in the commit.
    if (input.ifNoneMatch !== undefined || input.ifMatch !== undefined) {
      const current = await rows.find(tenantId, { bucket, key: address });
      if (!writeConditionsHold(current?.meta, input)) return err(preconditionFailed());
    }
    const written = await bytes.write({ kind: 'object', blobId }, input.bytes, input);
    if (written.kind === 'err') return written;
    const { ref, size, sha256, md5 } = written.value;
    const createdAt = new Date().toISOString();
    const meta = buildMeta({ blobId, tenantId, bucket, key: address }, input, {
      size,
      hash: sha256,
      etag: md5,
      createdAt,
    });
    const outcome = await committing(bytes, ref, () => rows.commit(meta, written.value, input));
    if (outcome.refused) {
      await bytes.discard([ref]);
      return err(preconditionFailed());
    }
    if (outcome.replaced !== undefined) await bytes.discard([outcome.replaced]);
    return ok(meta);
  }

  async function read(
    tenantId: string,
    where: ObjectWhere,
    range: ByteRange | undefined,
    missing: BlobError,
  ): Promise<Result<BlobReadResult, BlobError>> {
    // A replace or delete between the row lookup and the read removes the bytes: look again.
    for (let attempt = 0; attempt < 3; attempt++) {
      const found = await rows.find(tenantId, where);
      if (found === undefined) break;
      const { meta } = found;
      const start = Math.max(0, range?.start ?? 0);
      const end = Math.min(range?.end ?? meta.size - 1, meta.size - 1);
      if (found.bytes !== undefined) {
        const slice = found.bytes.subarray(start, Math.max(start, end + 1));
        return ok({ meta, stream: bufferStream(slice), bytes: slice });
      }
      const stream = await bytes.read(found.ref, start, end);
      if (stream !== null) return ok({ meta, stream });
    }
    return err(missing);
  }

  async function head(tenantId: string, where: ObjectWhere): Promise<Result<BlobMeta | null, BlobError>> {
    return ok((await rows.find(tenantId, where))?.meta ?? null);
  }

  async function remove(tenantId: string, where: ObjectWhere): Promise<Result<{ deleted: boolean }, BlobError>> {
    const ref = await rows.remove(tenantId, where);
    if (ref !== undefined) await bytes.discard([ref]);
    return ok({ deleted: ref !== undefined });
  }

  const byId = (blobId: string): BlobError => ({
    code: 'blob-not-found',
    message: `blob ${blobId} does not exist`,
    blobId,
  });

  return {
    put: (tenantId, input) => guarded(() => write(tenantId, ARTIFACTS_BUCKET, undefined, input)),
    putByKey: (tenantId, bucket, key, input) => guarded(() => write(tenantId, bucket, key, input)),
    get: (tenantId, blobId, options) => guarded(() => read(tenantId, { blobId }, options?.range, byId(blobId))),
    getByKey: (tenantId, bucket, key, options) =>
      guarded(() => read(tenantId, { bucket, key }, options?.range, keyNotFound(bucket, key))),
    head: (tenantId, blobId) => guarded(() => head(tenantId, { blobId })),
    headByKey: (tenantId, bucket, key) => guarded(() => head(tenantId, { bucket, key })),
    delete: (tenantId, blobId) => guarded(() => remove(tenantId, { blobId })),
    deleteByKey: (tenantId, bucket, key) => guarded(() => remove(tenantId, { bucket, key })),
    list: (tenantId, filter, cursor, limit) =>
      guarded(async () => {
        const below = cursor === undefined ? Number.MAX_SAFE_INTEGER : decodeListCursor(cursor);
        if (below === undefined) return err({ code: 'invalid-key', message: 'the list cursor is not valid' });
        const size = clampListLimit(limit);
        const found = await rows.list(tenantId, filter, below, size + 1);
        const data = found.slice(0, size).map((row) => row.meta);
        const last = found[size - 1];
        return ok(
          found.length > size && last !== undefined ? { data, nextCursor: encodeListCursor(last.seq) } : { data },
        );
      }),
    listByPrefix: (tenantId, bucket, input) =>
      guarded(() => listByPrefixOverScan((from, limit) => rows.scan(tenantId, bucket, from, limit), input)),
    ...multipartOperations(ports, limits),
  };
}
