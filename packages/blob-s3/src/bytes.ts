import { randomUUID } from 'node:crypto';
import {
  type BlobBody,
  type BlobBytesPort,
  type BlobError,
  type BodyDigests,
  type BodyExpectations,
  blobStorageError,
  consumeBody,
  type WrittenBytes,
} from '@kindgi/bindings';
import { ok, type Result } from '@kindgi/protocol';
import {
  discardObject,
  forgetPending,
  markPending,
  notePendingUpload,
  PendingObjectLost,
  type PostgresPool,
  sweepDue,
} from '@kindgi/store-postgres';
import type { ObjectStore } from './object-store.js';

/** Where the bytes go and how the intent log guards them. */
export interface S3BytesOptions {
  pool: PostgresPool;
  store: ObjectStore;
  /** Prepended to every object name in the bucket. */
  prefix: string;
  /** How long a body being written is safe from the sweep. */
  pendingGraceMs: number;
  /** Objects of a known length up to this many bytes are kept in their PostgreSQL row (0: none). */
  inlineMaxBytes: number;
}

/**
 * The ref of an object whose bytes its row keeps. Object-store keys always hold a `/` (`blobs/…`, `parts/…`)
 * and these never do, so no inline ref is ever sent to the object store.
 */
const inlineRef = (blobId: string): string => `inline:${blobId}`;
const isInlineRef = (ref: string): boolean => ref.startsWith('inline:') && !ref.includes('/');

/** The length a body will have when it is known before reading it: declared, or already in memory. */
function knownSize(body: BlobBody, expect: BodyExpectations): number | undefined {
  return expect.size ?? (body instanceof Uint8Array ? body.byteLength : undefined);
}

/**
 * Reads a small body into memory, checked and hashed, for its row to keep (`inline`): no intent-log mark and no
 * object-store request, as the object becomes durable and visible with its row's commit. `consumeBody` stops
 * at the first byte past a declared size, so what is held never exceeds it.
 */
async function keepInline(
  blobId: string,
  body: BlobBody,
  expect: BodyExpectations,
): Promise<Result<WrittenBytes, BlobError>> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  const digests = await consumeBody(
    body,
    (chunk) => {
      chunks.push(chunk);
      total += chunk.byteLength;
    },
    expect,
  );
  if (digests.kind === 'err') return digests;
  const inline = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
  return ok({ ref: inlineRef(blobId), ...digests.value, inline });
}

/**
 * Deletes objects no row references any more, at once; one that cannot be deleted now stays in the intent
 * log for the sweep, so a failure here is never the caller's.
 */
async function discardNow({ pool, store }: S3BytesOptions, objectKeys: readonly string[]): Promise<void> {
  const queue = objectKeys.filter((objectKey) => !isInlineRef(objectKey));
  const worker = async () => {
    for (let objectKey = queue.shift(); objectKey !== undefined; objectKey = queue.shift()) {
      if (await store.remove(objectKey)) await forgetPending(pool, objectKey).catch(() => undefined);
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]).catch(() => undefined);
}

/**
 * The bytes of blobs as objects in the bucket (`blobs/<blobId>`, `parts/<uploadId>/<n>-<nonce>`), or, for an
 * object of a known length up to `inlineMaxBytes`, in its row. Each write to the bucket is recorded in the
 * intent log before its first byte: if this process dies before a row references the object, the sweep
 * deletes it once the grace period is over.
 */
export function s3Bytes(options: S3BytesOptions): BlobBytesPort {
  const { pool, store, prefix } = options;
  return {
    async write(target, body, expect) {
      if (target.kind !== 'part') {
        const size = knownSize(body, expect);
        if (size !== undefined && size <= options.inlineMaxBytes) return keepInline(target.blobId, body, expect);
      }
      const objectKey =
        target.kind === 'part'
          ? `${prefix}parts/${target.uploadId}/${target.partNumber}-${randomUUID()}`
          : `${prefix}blobs/${target.blobId}`;
      await markPending(pool, objectKey, options.pendingGraceMs);
      const written = await store.write(objectKey, body, expect, (uploadId) =>
        notePendingUpload(pool, objectKey, uploadId),
      );
      // A failed body cleaned up after itself: its mark goes too.
      if (written.kind === 'err' && written.cleaned === true)
        await forgetPending(pool, objectKey).catch(() => undefined);
      const { cleaned: _cleaned, ...result } = written;
      const digests = result as Result<BodyDigests, BlobError>;
      return digests.kind === 'err' ? digests : ok({ ref: objectKey, ...digests.value });
    },
    read: (ref, start, end) => store.read(ref, start, end),
    discard: (refs) => discardNow(options, refs),
    /**
     * A commit that threw may have committed (the connection broke after COMMIT): the mark in the intent log
     * decides. Only when the sweep already took it (the write outlived its grace period) are the bytes written
     * since nobody's: marked again, due at once.
     */
    async abandon(ref, cause) {
      if (isInlineRef(ref) || !(cause instanceof PendingObjectLost)) return;
      await discardObject(pool, ref).catch(() => undefined);
      await discardNow(options, [ref]);
    },
  };
}

/**
 * Deletes every backend object the intent log says is due: bodies whose writer died (once their grace period
 * ended) and objects replaced or deleted whose removal failed at the time. Safe on any number of servers.
 */
export async function sweepUnreferenced(pool: PostgresPool, store: ObjectStore): Promise<Result<number, BlobError>> {
  try {
    let total = 0;
    for (;;) {
      const removed = await sweepDue(pool, async (due) => {
        const gone: string[] = [];
        for (const object of due)
          if (await store.remove(object.objectKey, object.backendUploadId)) gone.push(object.objectKey);
        return gone;
      });
      total += removed;
      if (removed === 0) return ok(total);
    }
  } catch (cause) {
    return blobStorageError(cause);
  }
}
