import { err, messageOf, ok, type Result } from '@kindgi/protocol';
import { type Batch, BodyHasher } from '../blob-core/body-hasher.js';
import type { BlobBody, BlobError } from '../blob-storage.js';

/** What reading a body produced: its length and digests, computed while it streamed. */
export interface BodyDigests {
  size: number;
  /** sha256, lowercase hex. */
  sha256: string;
  /** MD5, lowercase hex. */
  md5: string;
}

/** The checks a caller asked for on a body. */
export interface BodyExpectations {
  size?: number;
  expectedHash?: string;
  expectedMd5?: string;
}

function chunksOf(body: BlobBody): AsyncIterable<unknown> {
  if (body instanceof Uint8Array) {
    return (async function* one() {
      yield body;
    })();
  }
  // Node 20's web ReadableStream is async-iterable; the cast keeps older lib typings satisfied.
  return body as AsyncIterable<unknown>;
}

/**
 * Reads a body chunk by chunk, handing it to `sink` in order and hashing it once per algorithm (a large body's
 * MD5 and SHA-256 on worker threads, in parallel with the sink's writes; see `BodyHasher`). What `sink` gets is
 * lent until its promise settles (a large body's batch buffers are reused): a sink that keeps bytes past that
 * copies them. Stops early when a declared size is exceeded, so an oversized body is never buffered whole. A
 * failing source is `blob-body-failed`; a failing sink or hash worker is `blob-storage-error`. Never throws.
 */
export async function consumeBody(
  body: BlobBody,
  sink: (chunk: Uint8Array) => void | Promise<void>,
  expect: BodyExpectations,
): Promise<Result<BodyDigests, BlobError>> {
  let size = 0;
  const declared = expect.size;
  if (declared !== undefined && (!Number.isSafeInteger(declared) || declared < 0)) {
    return err({
      code: 'blob-size-mismatch',
      message: `declared size ${declared} is not a length`,
      declared,
      actual: 0,
    });
  }
  const hasher = new BodyHasher();
  const writer = orderedWriter(sink);
  const storageError = (cause: unknown): Result<never, BlobError> => {
    hasher.drop();
    // Storing or hashing failed (disk full, I/O error, a worker gone): the server's fault, not the body's.
    return err({ code: 'blob-storage-error', message: `storing the body failed: ${messageOf(cause)}`, cause });
  };
  const store = async (batches: Iterable<Batch> | AsyncIterable<Batch>): Promise<{ cause: unknown } | undefined> => {
    try {
      for await (const batch of batches) {
        const failed = await writer.write(batch);
        if (failed) return failed;
      }
      return undefined;
    } catch (cause) {
      // Only the hasher throws here (a hash worker failed).
      return { cause };
    }
  };
  try {
    for await (const chunk of chunksOf(body)) {
      if (!(chunk instanceof Uint8Array)) {
        throw new TypeError(`body chunk is ${typeof chunk}, expected Uint8Array`);
      }
      size += chunk.byteLength;
      if (declared !== undefined && size > declared) {
        await writer.settle();
        hasher.drop();
        return err({
          code: 'blob-size-mismatch',
          message: `body is longer than the declared ${declared} bytes`,
          declared,
          actual: size,
        });
      }
      const failed = await store(hasher.take(chunk));
      if (failed) {
        await writer.settle();
        return storageError(failed.cause);
      }
    }
  } catch (cause) {
    await writer.settle();
    hasher.drop();
    return err({ code: 'blob-body-failed', message: `reading the body failed: ${messageOf(cause)}`, cause });
  }
  const failed = (await store(hasher.finish())) ?? (await writer.settle());
  if (failed) return storageError(failed.cause);
  let hashed: { sha256: string; md5: string };
  try {
    hashed = await hasher.digests();
  } catch (cause) {
    return storageError(cause);
  }
  const digests = { size, ...hashed };
  const checked = checkDigests(digests, expect);
  return checked.kind === 'ok' ? ok(digests) : checked;
}

/**
 * Runs a sink's writes strictly in order, one at a time, each overlapping the reading (and hashing) of what
 * comes next. `write` waits for the previous write and answers its failure, if any; `settle` waits for the
 * last one. None is left running once `settle` resolved; each batch is told `written()` as its write settles.
 */
function orderedWriter(sink: (chunk: Uint8Array) => void | Promise<void>) {
  let pending: Promise<void> | undefined;
  let failure: { cause: unknown } | undefined;
  const settle = async (): Promise<{ cause: unknown } | undefined> => {
    const write = pending;
    pending = undefined;
    await write;
    return failure;
  };
  return {
    settle,
    async write(batch: Batch): Promise<{ cause: unknown } | undefined> {
      const earlier = await settle();
      if (earlier) {
        batch.written();
        return earlier;
      }
      try {
        // The failure is caught as soon as the write starts: a write that fails while the next chunk is
        // awaited must not surface as an unhandled rejection.
        pending = Promise.resolve(sink(batch.bytes))
          .then(
            () => undefined,
            (cause: unknown) => {
              failure ??= { cause };
            },
          )
          .finally(batch.written);
      } catch (cause) {
        failure ??= { cause };
        batch.written();
      }
      return failure;
    },
  };
}

/** Compares what arrived with what was declared: size first, then MD5 (`Content-MD5`), then sha256. */
export function checkDigests(digests: BodyDigests, expect: BodyExpectations): Result<true, BlobError> {
  if (expect.size !== undefined && digests.size !== expect.size) {
    return err({
      code: 'blob-size-mismatch',
      message: `declared ${expect.size} bytes, received ${digests.size}`,
      declared: expect.size,
      actual: digests.size,
    });
  }
  if (expect.expectedMd5 !== undefined && expect.expectedMd5.toLowerCase() !== digests.md5) {
    return err({
      code: 'blob-hash-mismatch',
      message: 'the body does not have the expected MD5',
      algorithm: 'md5',
      expected: expect.expectedMd5,
      actual: digests.md5,
    });
  }
  if (expect.expectedHash !== undefined && expect.expectedHash.toLowerCase() !== digests.sha256) {
    return err({
      code: 'blob-hash-mismatch',
      message: 'the body does not have the expected sha256',
      algorithm: 'sha256',
      expected: expect.expectedHash,
      actual: digests.sha256,
    });
  }
  return ok(true);
}
