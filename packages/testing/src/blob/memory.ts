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
  consumeBody,
  decodeListCursor,
  encodeListCursor,
  keyNotFound,
  listByPrefixOver,
  matchesFilter,
  preconditionFailed,
  writeConditionsHold,
} from '@kindgi/bindings';
import { err, ok, type Result } from '@kindgi/protocol';
import { memoryMultipart } from './memory-multipart.js';
import { type KeyIndex, type StoredBlob, TenantState } from './memory-state.js';

const CHUNK = 64 * 1024;

function streamOf(bytes: Buffer): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.length) {
        controller.close();
        return;
      }
      // A copy, so a consumer that mutates chunks cannot change what is stored.
      controller.enqueue(new Uint8Array(bytes.subarray(offset, offset + CHUNK)));
      offset += CHUNK;
    },
  });
}

function read(blob: StoredBlob, range: ByteRange | undefined): BlobReadResult {
  const meta = structuredClone(blob.meta);
  if (range === undefined) return { meta, stream: streamOf(blob.bytes) };
  const start = Math.max(0, range.start);
  const end = Math.min(range.end, blob.bytes.length - 1);
  return { meta, stream: streamOf(end >= start ? blob.bytes.subarray(start, end + 1) : Buffer.alloc(0)) };
}

function notFound(ref: { blobId?: string; bucket?: string; key?: string }): { kind: 'err'; error: BlobError } {
  const what = ref.blobId !== undefined ? `blob ${ref.blobId}` : `key ${JSON.stringify(ref.key)} in ${ref.bucket}`;
  return err({ code: 'blob-not-found', message: `${what} does not exist`, ...ref });
}

/**
 * A `BlobStorageBinding` held in memory: correct for development and tests, gone when the process ends.
 * Bodies are read chunk by chunk and hashed as they stream; nothing becomes visible until every check passed.
 */
export function createInMemoryBlobStorage(): BlobStorageBinding {
  const tenants = new Map<string, TenantState>();
  let sequence = 0;
  const tenant = (tenantId: string): TenantState => {
    let state = tenants.get(tenantId);
    if (state === undefined) {
      state = new TenantState();
      tenants.set(tenantId, state);
    }
    return state;
  };

  async function write(
    tenantId: string,
    bucket: string,
    key: string | undefined,
    input: BlobPutInput,
  ): Promise<Result<BlobMeta, BlobError>> {
    const state = tenant(tenantId);
    const blobId = randomUUID();
    const address = key ?? blobId;
    const checked = checkAddress(bucket, address);
    if (checked.kind === 'err') return checked;
    if (!writeConditionsHold(state.at(bucket, address)?.meta, input)) return err(preconditionFailed());
    const chunks: Buffer[] = [];
    const body = await consumeBody(input.bytes, (chunk) => void chunks.push(Buffer.from(chunk)), input);
    if (body.kind === 'err') return body;
    // Checked again at commit: the body may have streamed for a long time, and this commit is synchronous.
    if (!writeConditionsHold(state.at(bucket, address)?.meta, input)) return err(preconditionFailed());
    const meta = buildMeta({ blobId, tenantId, bucket, key: address }, input, {
      size: body.value.size,
      hash: body.value.sha256,
      etag: body.value.md5,
      createdAt: new Date().toISOString(),
    });
    state.store({ meta, bytes: Buffer.concat(chunks), sequence: ++sequence });
    return ok(structuredClone(meta));
  }

  return {
    put: (tenantId, input) => write(tenantId, ARTIFACTS_BUCKET, undefined, input),
    putByKey: (tenantId, bucket, key, input) => write(tenantId, bucket, key, input),

    async get(tenantId, blobId, options) {
      const blob = tenant(tenantId).byId.get(blobId);
      return blob === undefined ? notFound({ blobId }) : ok(read(blob, options?.range));
    },
    async head(tenantId, blobId) {
      const blob = tenant(tenantId).byId.get(blobId);
      return ok(blob === undefined ? null : structuredClone(blob.meta));
    },
    async getByKey(tenantId, bucket, key, options) {
      const blob = tenant(tenantId).at(bucket, key);
      return blob === undefined ? err(keyNotFound(bucket, key)) : ok(read(blob, options?.range));
    },
    async headByKey(tenantId, bucket, key) {
      const blob = tenant(tenantId).at(bucket, key);
      return ok(blob === undefined ? null : structuredClone(blob.meta));
    },
    async delete(tenantId, blobId) {
      return ok({ deleted: tenant(tenantId).remove(blobId) });
    },
    async deleteByKey(tenantId, bucket, key) {
      const state = tenant(tenantId);
      const blob = state.at(bucket, key);
      return ok({ deleted: blob !== undefined && state.remove(blob.meta.blobId) });
    },

    async list(tenantId, filter, cursor, limit) {
      let below = Number.POSITIVE_INFINITY;
      if (cursor !== undefined) {
        const decoded = decodeListCursor(cursor);
        if (decoded === undefined) return err({ code: 'invalid-key', message: 'the list cursor is not valid' });
        below = decoded;
      }
      const size = clampListLimit(limit);
      const newestFirst = [...tenant(tenantId).byId.values()]
        .filter((blob) => blob.sequence < below && matchesFilter(blob.meta, filter))
        .sort((a, b) => b.sequence - a.sequence);
      const page = newestFirst.slice(0, size);
      const last = page.at(-1);
      const data = page.map((blob) => structuredClone(blob.meta));
      return ok(
        newestFirst.length > size && last !== undefined
          ? { data, nextCursor: encodeListCursor(last.sequence) }
          : { data },
      );
    },

    async listByPrefix(tenantId, bucket, input) {
      const index: KeyIndex | undefined = tenant(tenantId).buckets.get(bucket);
      const page = listByPrefixOver((bound) => index?.first(bound), input);
      if (page.kind === 'err') return page;
      const { nextContinuationToken, ...rest } = page.value;
      const contents = rest.contents.map((entry) => structuredClone(entry.blob.meta));
      return ok({ ...rest, contents, ...(nextContinuationToken !== undefined ? { nextContinuationToken } : {}) });
    },

    ...memoryMultipart({
      tenant,
      tenants: () => tenants.values(),
      store: (state, meta, bytes) => state.store({ meta, bytes, sequence: ++sequence }),
    }),
  };
}
