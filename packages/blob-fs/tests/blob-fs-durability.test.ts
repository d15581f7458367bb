import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BlobBody } from '@kindgi/bindings';
import { crashChildren } from '@kindgi/test-services/crash-child';
import { AWKWARD_KEYS } from '@kindgi/testing';
import { afterEach, expect, it } from 'vitest';
import { openFsBlobStorage, openKindgiDatabase } from '../src/index.js';

const packageDir = dirname(dirname(fileURLToPath(import.meta.url)));
const children = crashChildren();
const dirs: string[] = [];
afterEach(() => {
  children.killAll();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function freshDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'kindgi-blob-fs-'));
  dirs.push(dir);
  return dir;
}

function open(dataDir: string, options: { inlineMaxBytes?: number } = {}) {
  const opened = openFsBlobStorage({ dataDir, ...options });
  if (opened.kind === 'err') throw new Error(opened.error.message);
  return opened.value;
}

async function bytesOf(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

async function* slowly(fill: number, chunks: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < chunks; i++) {
    // Yielding to the event loop between chunks lets two uploads interleave their writes.
    await new Promise<void>((resolve) => setImmediate(resolve));
    yield Buffer.alloc(256 * 1024, fill + i);
  }
}

it('objects, metadata and multipart uploads survive closing and reopening', async () => {
  const dataDir = freshDir();
  const first = open(dataDir);
  const put = await first.putByKey('t', 'b', 'dir/a.txt', {
    name: 'a.txt',
    contentType: 'text/plain',
    bytes: Buffer.from('hello'),
    tags: { x: '1' },
  });
  const upload = await first.initiateMultipartUpload('t', 'b', 'multi', { contentType: 'a/b' });
  if (put.kind === 'err' || upload.kind === 'err') throw new Error('setup failed');
  const part = await first.uploadPart('t', 'b', 'multi', upload.value.uploadId, 1, { bytes: Buffer.from('part') });
  expect(part.kind).toBe('ok');
  first.close();

  const second = open(dataDir);
  try {
    expect(second.swept).toBe(0);
    expect(await second.headByKey('t', 'b', 'dir/a.txt')).toEqual({ kind: 'ok', value: put.value });
    const read = await second.get('t', put.value.blobId);
    if (read.kind === 'err') throw new Error(read.error.message);
    expect((await bytesOf(read.value.stream)).toString()).toBe('hello');
    const parts = await second.listParts('t', 'b', 'multi', upload.value.uploadId);
    expect(parts.kind === 'ok' && parts.value.parts.map((p) => p.etag)).toEqual([
      createHash('md5').update('part').digest('hex'),
    ]);
    const done = await second.completeMultipartUpload('t', 'b', 'multi', upload.value.uploadId, [
      { partNumber: 1, etag: parts.kind === 'ok' ? parts.value.parts[0]!.etag : '' },
    ]);
    expect(done.kind === 'ok' && done.value.size).toBe(4);
    expect(readdirSync(join(dataDir, 'parts'))).toEqual([]);
  } finally {
    second.close();
  }
});

it('keys never reach the filesystem: files are named by blobId only', async () => {
  const dataDir = freshDir();
  // Every object in a file, however small.
  const storage = open(dataDir, { inlineMaxBytes: 0 });
  try {
    for (const key of AWKWARD_KEYS) {
      const put = await storage.putByKey('t', 'b', key, { name: 'n', contentType: 'a/b', bytes: Buffer.from(key) });
      expect(put.kind).toBe('ok');
    }
    const entries = readdirSync(dataDir, { recursive: true, withFileTypes: true });
    const files = entries.filter((entry) => entry.isFile()).map((entry) => entry.name);
    const blobFiles = files.filter((name) => !name.startsWith('kindgi.sqlite') && !name.startsWith('owner.'));
    expect(blobFiles).toHaveLength(AWKWARD_KEYS.length);
    for (const name of blobFiles)
      expect(name).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(new Set(entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name)).size).toBeGreaterThan(0);
    for (const entry of entries.filter((e) => e.isDirectory())) expect(entry.parentPath.startsWith(dataDir)).toBe(true);
  } finally {
    storage.close();
  }
});

it('two concurrent putByKey of different bodies to one key leave exactly one, with matching ETag and sha256', async () => {
  const dataDir = freshDir();
  const storage = open(dataDir);
  try {
    const body = (fill: number): BlobBody => slowly(fill, 32);
    const results = await Promise.all([
      storage.putByKey('t', 'b', 'contended', { name: 'a', contentType: 'a/b', bytes: body(1) }),
      storage.putByKey('t', 'b', 'contended', { name: 'b', contentType: 'a/b', bytes: body(101) }),
    ]);
    expect(results.map((result) => result.kind)).toEqual(['ok', 'ok']);
    const read = await storage.getByKey('t', 'b', 'contended');
    if (read.kind === 'err') throw new Error(read.error.message);
    const bytes = await bytesOf(read.value.stream);
    expect(bytes.length).toBe(8 * 1024 * 1024);
    expect(read.value.meta.hash).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(read.value.meta.etag).toBe(createHash('md5').update(bytes).digest('hex'));
    const expectedFirst = read.value.meta.name === 'a' ? 1 : 101;
    expect(bytes[0]).toBe(expectedFirst);
    expect(bytes.at(-1)).toBe(expectedFirst + 31);
    const listing = await storage.listByPrefix('t', 'b', {});
    expect(listing.kind === 'ok' && listing.value.contents.map((meta) => meta.blobId)).toEqual([
      read.value.meta.blobId,
    ]);
    const files = readdirSync(join(dataDir, 'blobs'), { recursive: true, withFileTypes: true }).filter((e) =>
      e.isFile(),
    );
    expect(files.map((file) => file.name)).toEqual([read.value.meta.blobId]);
  } finally {
    storage.close();
  }
});

it('refuses a directory another live process owns (a lock, not a pid), and takes it the moment that one dies', async () => {
  const dataDir = freshDir();
  const owner = await children.start(join(packageDir, 'tests/fixtures/hold-dir.ts'), [dataDir], {
    cwd: packageDir,
    readyOn: ['holding '],
  });
  const refused = openFsBlobStorage({ dataDir });
  expect(refused.kind === 'err' && refused.error).toMatchObject({ code: 'blob-storage-error' });
  expect(refused.kind === 'err' && refused.error.message).toContain(`in use by process ${owner.pid}`);
  // A row naming a live pid no longer decides anything: only the lock does.
  const db = openKindgiDatabase(dataDir);
  db.prepare("INSERT INTO blob_dir_owner (id, pid, opened_at) VALUES (1, ?, 'x')").run(process.ppid);
  db.close();
  await children.kill(owner);
  const taken = openFsBlobStorage({ dataDir });
  expect(taken.kind).toBe('ok');
  if (taken.kind === 'ok') taken.value.close();
});

it('refuses a second open of a directory this process already has open', () => {
  const dataDir = freshDir();
  const first = open(dataDir);
  const second = openFsBlobStorage({ dataDir: join(dataDir, '.') });
  expect(second.kind === 'err' && second.error.message).toContain('already open in this process');
  first.close();
  first.close();
  open(dataDir).close();
});

it('small objects live in the database: they survive reopening and its sweep, and leave no files', async () => {
  const dataDir = freshDir();
  const first = open(dataDir, { inlineMaxBytes: 1024 });
  // Concurrent small PUTs (committed together) to distinct keys and to one key.
  const results = await Promise.all([
    ...Array.from({ length: 20 }, (_, i) =>
      first.putByKey('t', 'b', `small/${i}`, { name: 'n', contentType: 'a/b', bytes: Buffer.from(`body ${i}`) }),
    ),
    first.putByKey('t', 'b', 'one', { name: 'a', contentType: 'a/b', bytes: Buffer.from('a') }),
    first.putByKey('t', 'b', 'one', { name: 'b', contentType: 'a/b', bytes: Buffer.from('b') }),
  ]);
  expect(results.every((result) => result.kind === 'ok')).toBe(true);
  // A file object replaced by a small one, and a small one by a file one.
  await first.putByKey('t', 'b', 'grows', { name: 'g', contentType: 'a/b', bytes: Buffer.from('tiny') });
  await first.putByKey('t', 'b', 'grows', { name: 'g', contentType: 'a/b', bytes: Buffer.alloc(4096, 1) });
  await first.putByKey('t', 'b', 'shrinks', { name: 's', contentType: 'a/b', bytes: Buffer.alloc(4096, 2) });
  await first.putByKey('t', 'b', 'shrinks', { name: 's', contentType: 'a/b', bytes: Buffer.from('small') });
  expect((await first.deleteByKey('t', 'b', 'small/0')).kind).toBe('ok');
  first.close();

  const second = open(dataDir, { inlineMaxBytes: 1024 });
  try {
    expect(second.swept).toBe(0);
    for (let i = 1; i < 20; i++) {
      const read = await second.getByKey('t', 'b', `small/${i}`);
      if (read.kind === 'err') throw new Error(read.error.message);
      expect((await bytesOf(read.value.stream)).toString()).toBe(`body ${i}`);
      expect(Buffer.from(read.value.bytes ?? []).toString()).toBe(`body ${i}`);
    }
    expect(await second.headByKey('t', 'b', 'small/0')).toEqual({ kind: 'ok', value: null });
    const one = await second.getByKey('t', 'b', 'one');
    if (one.kind === 'err') throw new Error(one.error.message);
    expect((await bytesOf(one.value.stream)).toString()).toBe(one.value.meta.name);
    const ranged = await second.getByKey('t', 'b', 'shrinks', { range: { start: 1, end: 3 } });
    expect(ranged.kind === 'ok' && (await bytesOf(ranged.value.stream)).toString()).toBe('mal');
    const files = readdirSync(join(dataDir, 'blobs'), { recursive: true, withFileTypes: true }).filter((e) =>
      e.isFile(),
    );
    const grows = await second.headByKey('t', 'b', 'grows');
    expect(files.map((file) => file.name)).toEqual([grows.kind === 'ok' ? grows.value?.blobId : '']);
  } finally {
    second.close();
  }
});

it('a body that fails mid-way leaves nothing behind: kept in memory, spilled past the inline limit, or a file', async () => {
  const dataDir = freshDir();
  const storage = open(dataDir, { inlineMaxBytes: 1024 });
  try {
    async function* failing(size: number): AsyncGenerator<Uint8Array> {
      yield Buffer.alloc(size, 1);
      throw new Error('client went away');
    }
    for (const [size, declared] of [
      [100, undefined],
      [5000, undefined],
      [5000, 10_000],
    ] as const) {
      const put = await storage.putByKey('t', 'b', `failing-${size}-${declared}`, {
        name: 'f',
        contentType: 'a/b',
        bytes: failing(size),
        ...(declared !== undefined ? { size: declared } : {}),
      });
      expect(put.kind === 'err' && put.error.code).toBe('blob-body-failed');
    }
    expect(readdirSync(join(dataDir, 'tmp'))).toEqual([]);
    expect(
      readdirSync(join(dataDir, 'blobs'), { recursive: true, withFileTypes: true }).filter((e) => e.isFile()),
    ).toEqual([]);
    const listing = await storage.listByPrefix('t', 'b', {});
    expect(listing.kind === 'ok' && listing.value.contents).toEqual([]);
  } finally {
    storage.close();
  }
});
