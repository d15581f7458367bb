import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crashChildren } from '@kindgi/test-services/crash-child';
import { afterEach, expect, it } from 'vitest';
import { openFsBlobStorage } from '../src/index.js';

const packageDir = dirname(dirname(fileURLToPath(import.meta.url)));
const MiB = 1024 * 1024;
const children = crashChildren();
const dirs: string[] = [];

afterEach(() => {
  children.killAll();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Opens storage; file objects only unless `inline` (these tests look at the files a crash leaves). */
function open(dataDir: string, inline = false) {
  const opened = openFsBlobStorage({ dataDir, ...(inline ? {} : { inlineMaxBytes: 0 }) });
  if (opened.kind === 'err') throw new Error(opened.error.message);
  return opened.value;
}

/** Starts the streaming child and resolves once it reports being mid-body (or, past the end, finished). */
function startStreaming(
  dataDir: string,
  key: string,
  sizes: { total: number; stopAfter: number; chunk: number } = { total: 64 * MiB, stopAfter: 32 * MiB, chunk: MiB },
) {
  const args = [dataDir, key, `${sizes.total}`, `${sizes.stopAfter}`, `${sizes.chunk}`];
  return children.start(join(packageDir, 'tests/fixtures/stream-put.ts'), args, {
    cwd: packageDir,
    readyOn: ['streaming ', 'finished ok'],
  });
}

it('SIGKILL mid-way through a 64 MiB put leaves the previous version, no partial object and no temp files', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'kindgi-crash-'));
  dirs.push(dataDir);
  const before = open(dataDir);
  const previous = await before.putByKey('tenant-a', 'b', 'big.bin', {
    name: 'v1',
    contentType: 'text/plain',
    bytes: Buffer.from('previous version'),
  });
  expect(previous.kind).toBe('ok');
  before.close();

  const child = await startStreaming(dataDir, 'big.bin');
  const temps = readdirSync(join(dataDir, 'tmp'));
  expect(temps).toHaveLength(1);
  // The child reports once the storage asks for the chunk after the first half. Storage overlaps a chunk's write
  // with reading the next, so every chunk but the last one handed over is on disk: the body is truly mid-stream.
  const written = statSync(join(dataDir, 'tmp', temps[0]!)).size;
  expect(written).toBeGreaterThanOrEqual(31 * MiB);
  expect(written).toBeLessThanOrEqual(32 * MiB);
  await children.kill(child);
  expect(child.signalCode).toBe('SIGKILL');

  const after = open(dataDir);
  try {
    expect(after.swept).toBeGreaterThanOrEqual(1);
    expect(readdirSync(join(dataDir, 'tmp'))).toEqual([]);
    const meta = await after.headByKey('tenant-a', 'b', 'big.bin');
    expect(meta.kind === 'ok' && meta.value?.name).toBe('v1');
    const read = await after.getByKey('tenant-a', 'b', 'big.bin');
    if (read.kind === 'err') throw new Error(read.error.message);
    expect(await new Response(read.value.stream).text()).toBe('previous version');
    const listing = await after.listByPrefix('tenant-a', 'b', {});
    expect(listing.kind === 'ok' && listing.value.contents.map((m) => [m.key, m.size])).toEqual([['big.bin', 16]]);
    const files = readdirSync(join(dataDir, 'blobs'), { recursive: true, withFileTypes: true }).filter((e) =>
      e.isFile(),
    );
    expect(files.map((file) => file.name)).toEqual([read.value.meta.blobId]);
  } finally {
    after.close();
  }
});

it('SIGKILL mid-way through the first put of a key leaves no object at all', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'kindgi-crash-'));
  dirs.push(dataDir);
  open(dataDir).close();
  await children.kill(await startStreaming(dataDir, 'fresh.bin'));
  const after = open(dataDir);
  try {
    expect(readdirSync(join(dataDir, 'tmp'))).toEqual([]);
    const meta = await after.headByKey('tenant-a', 'b', 'fresh.bin');
    expect(meta).toEqual({ kind: 'ok', value: null });
    const all = await after.list('tenant-a', {});
    expect(all.kind === 'ok' && all.value.data).toEqual([]);
  } finally {
    after.close();
  }
});

it('the sweep at open removes files without rows and rows without files', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'kindgi-sweep-'));
  dirs.push(dataDir);
  const storage = open(dataDir);
  const kept = await storage.putByKey('tenant-a', 'b', 'kept', {
    name: 'k',
    contentType: 'a/b',
    bytes: Buffer.from('k'),
  });
  const lost = await storage.putByKey('tenant-a', 'b', 'lost', {
    name: 'l',
    contentType: 'a/b',
    bytes: Buffer.from('l'),
  });
  if (kept.kind === 'err' || lost.kind === 'err') throw new Error('setup failed');
  storage.close();
  const orphanId = '0f0f0f0f-0000-4000-8000-000000000000';
  writeFileSync(join(dataDir, 'blobs', lost.value.blobId.slice(0, 2), orphanId), 'renamed but never committed');
  writeFileSync(join(dataDir, 'tmp', '999999-stale'), 'half a body');
  writeFileSync(join(dataDir, 'parts', 'no-such-upload.1.x'), 'part without a row');
  rmSync(join(dataDir, 'blobs', lost.value.blobId.slice(0, 2), lost.value.blobId));
  const reopened = open(dataDir);
  try {
    expect(reopened.swept).toBe(4);
    const listing = await reopened.listByPrefix('tenant-a', 'b', {});
    expect(listing.kind === 'ok' && listing.value.contents.map((meta) => meta.key)).toEqual(['kept']);
    expect(readdirSync(join(dataDir, 'tmp'))).toEqual([]);
    expect(readdirSync(join(dataDir, 'parts'))).toEqual([]);
    const hash = createHash('sha256').update('k').digest('hex');
    expect(kept.value.hash).toBe(hash);
  } finally {
    reopened.close();
  }
});

it('small objects (kept in the database): SIGKILL mid-PUT leaves nothing, after the answer leaves the object', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'kindgi-crash-'));
  dirs.push(dataDir);
  open(dataDir, true).close();
  await children.kill(await startStreaming(dataDir, 'small-cut', { total: 8192, stopAfter: 4096, chunk: 1024 }));
  await children.kill(await startStreaming(dataDir, 'small-done', { total: 8192, stopAfter: 16384, chunk: 1024 }));
  const after = open(dataDir, true);
  try {
    expect(await after.headByKey('tenant-a', 'b', 'small-cut')).toEqual({ kind: 'ok', value: null });
    const read = await after.getByKey('tenant-a', 'b', 'small-done');
    if (read.kind === 'err') throw new Error(read.error.message);
    const bytes = Buffer.from(await new Response(read.value.stream).arrayBuffer());
    expect(bytes.length).toBe(8192);
    expect(read.value.meta.hash).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(readdirSync(join(dataDir, 'tmp'))).toEqual([]);
    expect(
      readdirSync(join(dataDir, 'blobs'), { recursive: true, withFileTypes: true }).filter((e) => e.isFile()),
    ).toEqual([]);
  } finally {
    after.close();
  }
});
