import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type FsBlobStorage, openFsBlobStorage } from '@kindgi/blob-fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BUCKET, errorCode, rawS3, type S3TestServer, signRequest, startS3Server } from './s3-harness.js';

// Objects large enough to take the batched path (reads and writes in large chunks), through the S3 surface on
// the filesystem binding: every check still applies, and a failed body leaves nothing behind. Hashed on the
// event loop, whatever the machine's cores (blob-fs-large-bodies covers the worker threads).
process.env.KINDGI_HASH_WORKERS = '0';

let server: S3TestServer;
let storage: FsBlobStorage;
let dataDir: string;
// Each putByKey's outcome by key, so a test can wait for the server to be done with an upload that broke off.
const outcomes = new Map<string, (outcome: { kind: string; code?: string }) => void>();
// Called with the bytes of a key's body the storage has taken so far.
const progress = new Map<string, (taken: number) => void>();

async function* counted(key: string, bytes: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  let taken = 0;
  for await (const chunk of bytes) {
    taken += chunk.byteLength;
    progress.get(key)?.(taken);
    yield chunk;
  }
}
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'kindgi-s3-big-'));
  const opened = openFsBlobStorage({ dataDir });
  if (opened.kind === 'err') throw new Error(opened.error.message);
  storage = opened.value;
  const putByKey: typeof storage.putByKey = async (tenantId, bucket, key, input) => {
    const bytes = counted(key, input.bytes as AsyncIterable<Uint8Array>);
    const result = await storage.putByKey(tenantId, bucket, key, { ...input, bytes });
    outcomes.get(key)?.({ kind: result.kind, ...(result.kind === 'err' ? { code: result.error.code } : {}) });
    return result;
  };
  server = await startS3Server({ blobStorage: { ...storage, putByKey } });
});
afterAll(async () => {
  await server.close();
  storage.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const body = randomBytes(6 * 1024 * 1024 + 321);
const md5Base64 = createHash('md5').update(body).digest('base64');
const sha256Base64 = createHash('sha256').update(body).digest('base64');
const path = `/s3/${BUCKET}/big.bin`;

it('stores a large object with Content-MD5 and a SHA-256 checksum, and serves it and its ranges exactly', async () => {
  const put = await rawS3(server, {
    method: 'PUT',
    path,
    body,
    headers: { 'content-md5': md5Base64, 'x-amz-checksum-sha256': sha256Base64 },
  });
  expect(put.status).toBe(200);
  expect(put.headers.get('etag')).toBe(`"${createHash('md5').update(body).digest('hex')}"`);
  expect(put.headers.get('x-amz-checksum-sha256')).toBe(sha256Base64);
  const full = await rawS3(server, { method: 'GET', path, headers: { 'x-amz-checksum-mode': 'ENABLED' } });
  expect(full.status).toBe(200);
  expect(full.body.equals(body)).toBe(true);
  expect(full.headers.get('x-amz-checksum-sha256')).toBe(sha256Base64);
  for (const [start, end] of [
    [1024 * 1024 - 1, 3 * 1024 * 1024 + 1],
    [body.length - 10, body.length - 1],
  ] as const) {
    const ranged = await rawS3(server, { method: 'GET', path, headers: { range: `bytes=${start}-${end}` } });
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get('content-range')).toBe(`bytes ${start}-${end}/${body.length}`);
    expect(ranged.body.equals(body.subarray(start, end + 1))).toBe(true);
  }
});

it('refuses a large body whose Content-MD5 or SHA-256 checksum does not match, keeping the stored object', async () => {
  const other = Buffer.from(body);
  other[5 * 1024 * 1024] = other[5 * 1024 * 1024]! ^ 1;
  // Signed with the payload's own hash the SHA-256 header is checked on its own; unsigned, by the storage's hash.
  const cases: Array<{ headers: Record<string, string>; payloadHash?: string }> = [
    { headers: { 'content-md5': md5Base64 } },
    { headers: { 'x-amz-checksum-sha256': sha256Base64 } },
    { headers: { 'x-amz-checksum-sha256': sha256Base64 }, payloadHash: 'UNSIGNED-PAYLOAD' },
  ];
  for (const { headers, payloadHash } of cases) {
    const put = await rawS3(server, {
      method: 'PUT',
      path,
      body: other,
      headers,
      ...(payloadHash ? { payloadHash } : {}),
    });
    expect({ status: put.status, code: errorCode(put.body) }).toEqual({ status: 400, code: 'BadDigest' });
  }
  const get = await rawS3(server, { method: 'GET', path });
  expect(get.body.equals(body)).toBe(true);
  expect(readdirSync(join(dataDir, 'tmp'))).toEqual([]);
});

it('a client that resets mid-way through a large upload leaves no object and no file behind', async () => {
  const resetPath = `/s3/${BUCKET}/reset.bin`;
  const headers = signRequest(server.port, {
    method: 'PUT',
    path: resetPath,
    payloadHash: 'UNSIGNED-PAYLOAD',
    headers: { 'content-length': String(body.length) },
    sign: ['content-length'],
  });
  const outcome = new Promise<{ kind: string; code?: string }>((resolve) => outcomes.set('reset.bin', resolve));
  const req = httpRequest({ host: '127.0.0.1', port: server.port, method: 'PUT', path: resetPath, headers });
  req.on('error', () => undefined);
  // Reset once the storage took more than the small-body limit: the hash workers hold this body then.
  progress.set('reset.bin', (taken) => {
    if (taken > 2 * 1024 * 1024) req.destroy();
  });
  req.write(body.subarray(0, 4 * 1024 * 1024));
  expect(await outcome).toEqual({ kind: 'err', code: 'blob-body-failed' });
  outcomes.delete('reset.bin');
  progress.delete('reset.bin');
  expect(readdirSync(join(dataDir, 'tmp'))).toEqual([]);
  expect((await rawS3(server, { method: 'HEAD', path: resetPath })).status).toBe(404);
  const put = await rawS3(server, { method: 'PUT', path: resetPath, body });
  expect(put.status).toBe(200);
});
