import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashWorkerPool } from '@kindgi/bindings';
import { afterEach, expect, it } from 'vitest';
import { openFsBlobStorage } from '../src/index.js';

// Bodies past 1 MiB are batched into shared buffers and hashed on worker threads: these tests hold that path
// to the same results as the small one (exact bytes and digests, nothing left behind on failure). One worker,
// whatever the machine's cores (below three the process default is none: s3-big-objects covers that path).
process.env.KINDGI_HASH_WORKERS = '1';

const dirs: string[] = [];
const closers: Array<() => void> = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function openFresh() {
  const dataDir = mkdtempSync(join(tmpdir(), 'kindgi-blob-fs-large-'));
  dirs.push(dataDir);
  const opened = openFsBlobStorage({ dataDir });
  if (opened.kind === 'err') throw new Error(opened.error.message);
  closers.push(() => opened.value.close());
  return { storage: opened.value, dataDir };
}

async function bytesOf(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

/** `bytes` in pieces of uneven sizes, a macrotask between them, like a socket. */
async function* pieces(bytes: Buffer, onOffset?: (offset: number) => Promise<void> | void): AsyncGenerator<Uint8Array> {
  const sizes = [1, 65_536, 7, 300_000, 1_048_577, 4096];
  for (let at = 0, i = 0; at < bytes.length; i++) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    await onOffset?.(at);
    const size = sizes[i % sizes.length]!;
    yield bytes.subarray(at, at + size);
    at += size;
  }
}

const md5 = (bytes: Buffer) => createHash('md5').update(bytes).digest('hex');
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const leftovers = (dataDir: string) => readdirSync(join(dataDir, 'tmp'));

it('stores a large body with exact digests, and reads any range of it back exactly', async () => {
  const { storage } = openFresh();
  const body = randomBytes(5 * 1024 * 1024 + 123);
  const put = await storage.putByKey('t', 'b', 'big', {
    name: 'big',
    contentType: 'application/octet-stream',
    bytes: pieces(body),
    size: body.length,
    expectedMd5: md5(body),
    expectedHash: sha256(body),
  });
  expect(put).toMatchObject({ kind: 'ok', value: { size: body.length, etag: md5(body), hash: sha256(body) } });
  const ranges: Array<[number, number]> = [
    [0, body.length - 1],
    [1024 * 1024 - 3, 2 * 1024 * 1024 + 5],
    [body.length - 1, body.length - 1],
    [3_000_001, 3_000_001 + 1024 * 1024],
  ];
  for (const [start, end] of ranges) {
    const read = await storage.getByKey('t', 'b', 'big', { range: { start, end } });
    if (read.kind === 'err') throw new Error(read.error.message);
    expect((await bytesOf(read.value.stream)).equals(body.subarray(start, end + 1))).toBe(true);
  }
});

it('keeps concurrent large bodies apart, and takes a body handed over as one large buffer', async () => {
  const { storage } = openFresh();
  const bodies = [randomBytes(3 * 1024 * 1024 + 1), randomBytes(4 * 1024 * 1024 - 1), randomBytes(9 * 1024 * 1024)];
  const puts = await Promise.all(
    bodies.map((body, i) =>
      storage.putByKey('t', 'b', `k${i}`, {
        name: `k${i}`,
        contentType: 'a/b',
        // The last one is a single Uint8Array spanning many batches.
        bytes: i === 2 ? body : pieces(body),
      }),
    ),
  );
  for (const [i, body] of bodies.entries()) {
    expect(puts[i]).toMatchObject({ kind: 'ok', value: { etag: md5(body), hash: sha256(body) } });
    const read = await storage.getByKey('t', 'b', `k${i}`);
    if (read.kind === 'err') throw new Error(read.error.message);
    expect((await bytesOf(read.value.stream)).equals(body)).toBe(true);
  }
});

it('a hash worker failing mid-body fails that body only, leaving no object and no file', async () => {
  const { storage, dataDir } = openFresh();
  const body = randomBytes(6 * 1024 * 1024);
  let killed = false;
  const put = await storage.putByKey('t', 'b', 'victim', {
    name: 'victim',
    contentType: 'a/b',
    bytes: pieces(body, async (offset) => {
      // Past the small-body limit the workers hold this body's hashes: end them all.
      if (!killed && offset > 3 * 1024 * 1024) {
        killed = true;
        await hashWorkerPool().terminate();
      }
    }),
  });
  expect(killed).toBe(true);
  expect(put).toMatchObject({ kind: 'err', error: { code: 'blob-storage-error' } });
  expect(await storage.headByKey('t', 'b', 'victim')).toEqual({ kind: 'ok', value: null });
  expect(leftovers(dataDir)).toEqual([]);
  // The pool starts fresh workers for the next body.
  const again = await storage.putByKey('t', 'b', 'victim', { name: 'victim', contentType: 'a/b', bytes: pieces(body) });
  expect(again).toMatchObject({ kind: 'ok', value: { etag: md5(body), hash: sha256(body) } });
});

it('a body that breaks off or fails its digest past the small-body limit leaves nothing behind', async () => {
  const { storage, dataDir } = openFresh();
  const body = randomBytes(4 * 1024 * 1024);
  async function* breaking(): AsyncGenerator<Uint8Array> {
    yield* pieces(body.subarray(0, 3 * 1024 * 1024));
    throw new Error('connection reset');
  }
  const broken = await storage.putByKey('t', 'b', 'k', { name: 'k', contentType: 'a/b', bytes: breaking() });
  expect(broken).toMatchObject({ kind: 'err', error: { code: 'blob-body-failed' } });
  const wrongMd5 = await storage.putByKey('t', 'b', 'k', {
    name: 'k',
    contentType: 'a/b',
    bytes: pieces(body),
    expectedMd5: md5(Buffer.from('something else')),
  });
  expect(wrongMd5).toMatchObject({ kind: 'err', error: { code: 'blob-hash-mismatch', algorithm: 'md5' } });
  expect(await storage.headByKey('t', 'b', 'k')).toEqual({ kind: 'ok', value: null });
  expect(leftovers(dataDir)).toEqual([]);
});
