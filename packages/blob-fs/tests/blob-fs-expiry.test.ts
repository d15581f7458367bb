import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it, vi } from 'vitest';
import { type FsBlobStorage, openFsBlobStorage } from '../src/index.js';

const dirs: string[] = [];
const open: FsBlobStorage[] = [];
afterEach(() => {
  for (const storage of open.splice(0)) storage.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function openStorage(dataDir: string, options: { multipartExpiryMs?: number; expirySweepMs?: number } = {}) {
  const opened = openFsBlobStorage({ dataDir, ...options });
  if (opened.kind === 'err') throw new Error(opened.error.message);
  open.push(opened.value);
  return opened.value;
}

/** An upload with one part; `racingSweep` when a sweep may already expire it between the two calls. */
async function abandonedUpload(storage: FsBlobStorage, racingSweep = false): Promise<string> {
  const started = await storage.initiateMultipartUpload('t', 'b', 'k', { contentType: 'x/y' });
  if (started.kind === 'err') throw new Error(started.error.message);
  const part = await storage.uploadPart('t', 'b', 'k', started.value.uploadId, 1, { bytes: Buffer.from('part') });
  if (!racingSweep) expect(part.kind).toBe('ok');
  return started.value.uploadId;
}

it('keeps young uploads at open and aborts those older than multipartExpiryMs, part files too', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'kindgi-expiry-'));
  dirs.push(dataDir);
  const first = openStorage(dataDir);
  const uploadId = await abandonedUpload(first);
  first.close();
  open.length = 0;

  const young = openStorage(dataDir);
  expect((await young.listParts('t', 'b', 'k', uploadId)).kind).toBe('ok');
  young.close();
  open.length = 0;

  const expiring = openStorage(dataDir, { multipartExpiryMs: 1 });
  expect((await expiring.listParts('t', 'b', 'k', uploadId)).kind).toBe('err');
  expect(readdirSync(join(dataDir, 'parts'))).toEqual([]);
});

it('sweeps periodically while open', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'kindgi-expiry-'));
  dirs.push(dataDir);
  const storage = openStorage(dataDir, { multipartExpiryMs: 1, expirySweepMs: 20 });
  const uploadId = await abandonedUpload(storage, true);
  await vi.waitFor(
    async () => {
      const listed = await storage.listMultipartUploads('t', 'b', {});
      expect(listed.kind === 'ok' && listed.value.uploads).toEqual([]);
      expect(readdirSync(join(dataDir, 'parts'))).toEqual([]);
    },
    { timeout: 20_000, interval: 20 },
  );
  expect((await storage.listParts('t', 'b', 'k', uploadId)).kind).toBe('err');
});
