import { createHash } from 'node:crypto';
import type { BlobStorageBinding } from '@kindgi/bindings';
import type { Result } from '@kindgi/protocol';

/** What a contract factory hands back: the binding under test and how to dispose of it. */
export interface BlobStorageContractSubject {
  storage: BlobStorageBinding;
  close?: () => void | Promise<void>;
}

/** Creates a fresh, empty binding for one contract test. */
export type BlobStorageContractFactory = () => BlobStorageContractSubject | Promise<BlobStorageContractSubject>;

/** The current binding inside a contract test (a fresh one per test). */
export type CurrentStorage = () => BlobStorageBinding;

/** The value of an ok result; a readable failure otherwise. */
export function unwrap<T, E>(result: Result<T, E>): T {
  if (result.kind === 'err') throw new Error(`expected ok, got ${JSON.stringify(result.error)}`);
  return result.value;
}

/** The error of an err result; a readable failure otherwise. */
export function unwrapErr<T, E>(result: Result<T, E>): E {
  if (result.kind === 'ok') throw new Error(`expected an error, got ok: ${JSON.stringify(result.value)}`);
  return result.error;
}

/** Every byte of a web stream. */
export async function readAll(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

/** Deterministic pseudo-random bytes, so a wrong offset or a dropped chunk changes the hash. */
export function pattern(size: number, seed = 1): Buffer {
  const out = Buffer.alloc(size);
  let state = seed >>> 0 || 1;
  for (let i = 0; i < size; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    out[i] = state & 0xff;
  }
  return out;
}

export const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');
export const md5 = (bytes: Uint8Array): string => createHash('md5').update(bytes).digest('hex');

/** A web stream delivering `bytes` in chunks of `chunkSize`, one per pull. */
export function webStream(bytes: Buffer, chunkSize = 1000): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(new Uint8Array(bytes.subarray(offset, offset + chunkSize)));
      offset += chunkSize;
    },
  });
}

/** An async iterable delivering `bytes` in chunks. */
export async function* iterable(bytes: Buffer, chunkSize = 777): AsyncGenerator<Uint8Array> {
  for (let offset = 0; offset < bytes.length; offset += chunkSize) yield bytes.subarray(offset, offset + chunkSize);
}

/** A web stream that delivers `before` bytes, then errors with `reason`. */
export function failingStream(before: Buffer, reason: Error): ReadableStream<Uint8Array> {
  let sent = false;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (!sent) {
        sent = true;
        controller.enqueue(new Uint8Array(before));
        return;
      }
      controller.error(reason);
    },
  });
}

/**
 * A body that delivers `head`, then waits at a gate until released, then delivers `tail`. `reached` resolves
 * once the consumer asked for the chunk after `head`, i.e. the storage has taken in `head` and is waiting.
 */
export function gatedBody(
  head: Buffer,
  tail: Buffer,
): {
  body: AsyncIterable<Uint8Array>;
  reached: Promise<void>;
  release: () => void;
} {
  let signal!: () => void;
  let release!: () => void;
  const reached = new Promise<void>((resolve) => {
    signal = resolve;
  });
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  async function* body(): AsyncGenerator<Uint8Array> {
    yield head;
    signal();
    await gate;
    yield tail;
  }
  return { body: body(), reached, release };
}

/** Collects every key and common prefix of a listing by following continuation tokens. */
export async function listAll(
  storage: BlobStorageBinding,
  tenantId: string,
  bucket: string,
  input: { prefix?: string; delimiter?: string; startAfter?: string; maxKeys: number },
): Promise<{ keys: string[]; commonPrefixes: string[]; pages: number }> {
  const keys: string[] = [];
  const commonPrefixes: string[] = [];
  let token: string | undefined;
  let pages = 0;
  for (;;) {
    const page = unwrap(
      await storage.listByPrefix(
        tenantId,
        bucket,
        token === undefined ? input : { ...input, continuationToken: token },
      ),
    );
    pages++;
    keys.push(...page.contents.map((meta) => meta.key));
    commonPrefixes.push(...page.commonPrefixes);
    if (!page.isTruncated) return { keys, commonPrefixes, pages };
    if (page.nextContinuationToken === undefined) throw new Error('a truncated page has no continuation token');
    token = page.nextContinuationToken;
    if (pages > 10_000) throw new Error('listing does not end');
  }
}
