import { createHash } from 'node:crypto';
import { err, messageOf, ok, type Result } from '@kindgi/protocol';
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
 * Reads a body chunk by chunk, handing each chunk to `sink` and hashing it incrementally. Stops early when a
 * declared size is exceeded, so an oversized body is never buffered whole. A failing source is
 * `blob-body-failed`; a failing sink is `blob-storage-error`. Never throws.
 */
export async function consumeBody(
  body: BlobBody,
  sink: (chunk: Uint8Array) => void | Promise<void>,
  expect: BodyExpectations,
): Promise<Result<BodyDigests, BlobError>> {
  const sha256 = createHash('sha256');
  const md5 = createHash('md5');
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
  // The sink's write of one chunk overlaps the reading and hashing of the next (the write runs on libuv's
  // thread pool while this thread hashes); writes stay strictly in order, one at a time, and none is left
  // running when this returns.
  let pending: Promise<void> | undefined;
  let sinkFailure: { cause: unknown } | undefined;
  const settlePending = async (): Promise<void> => {
    const write = pending;
    pending = undefined;
    await write;
  };
  const storageError = (cause: unknown): Result<never, BlobError> =>
    // Storing failed (disk full, I/O error): the server's fault, not the body's.
    err({ code: 'blob-storage-error', message: `storing the body failed: ${messageOf(cause)}`, cause });
  try {
    for await (const chunk of chunksOf(body)) {
      if (!(chunk instanceof Uint8Array)) {
        throw new TypeError(`body chunk is ${typeof chunk}, expected Uint8Array`);
      }
      size += chunk.byteLength;
      if (declared !== undefined && size > declared) {
        await settlePending();
        return err({
          code: 'blob-size-mismatch',
          message: `body is longer than the declared ${declared} bytes`,
          declared,
          actual: size,
        });
      }
      sha256.update(chunk);
      md5.update(chunk);
      await settlePending();
      if (sinkFailure) return storageError(sinkFailure.cause);
      try {
        // The failure is caught as soon as the write starts: a write that fails while the next chunk is
        // awaited must not surface as an unhandled rejection.
        pending = Promise.resolve(sink(chunk)).then(
          () => undefined,
          (cause: unknown) => {
            sinkFailure ??= { cause };
          },
        );
      } catch (cause) {
        return storageError(cause);
      }
    }
  } catch (cause) {
    await settlePending();
    return err({ code: 'blob-body-failed', message: `reading the body failed: ${messageOf(cause)}`, cause });
  }
  await settlePending();
  if (sinkFailure) return storageError(sinkFailure.cause);
  const digests = { size, sha256: sha256.digest('hex'), md5: md5.digest('hex') };
  const checked = checkDigests(digests, expect);
  return checked.kind === 'ok' ? ok(digests) : checked;
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
