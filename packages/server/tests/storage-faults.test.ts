import { createHash } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs, makeTempDir, reapPackServices, startServer, stopAllServers, writeConfig } from './harness.js';
import { api } from './http.js';

const TOKEN = 'kgi_test_storage_0123456789abcdef';
const KEY = { accessKeyId: 'KGITESTSTORAGE01', secretAccessKey: 'storage-secret-0123456789abcdef' };

function configFor(dir: string, dataDir: string): string {
  return writeConfig(dir, dataDir, {
    tokens: [{ token: TOKEN, tenantId: 'tenant-a' }],
    s3Credentials: [
      { accessKeyId: KEY.accessKeyId, secretKey: KEY.secretAccessKey, tenantId: 'tenant-a', bucket: 'artifacts' },
    ],
  });
}

function s3(url: string): S3Client {
  return new S3Client({
    endpoint: `${url}/s3`,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: KEY,
    // A plain body of known length (UNSIGNED-PAYLOAD), so the test controls exactly how much is sent.
    requestChecksumCalculation: 'WHEN_REQUIRED',
  });
}

async function bodyOf(client: S3Client, key: string): Promise<Buffer> {
  const got = await client.send(new GetObjectCommand({ Bucket: 'artifacts', Key: key }));
  return Buffer.from(await (got.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray());
}

/** Files under the storage's temporary folder (where bodies stream before they are renamed into place). */
function tempFiles(dataDir: string): { name: string; size: number }[] {
  const tmp = join(dataDir, 'objects', 'tmp');
  if (!existsSync(tmp)) return [];
  return readdirSync(tmp).map((name) => ({ name, size: statSync(join(tmp, name)).size }));
}

/** Resolves once `check` holds, looking every 50 ms; fails after `limitMs` (a bound on a wait, not a timing bet). */
async function until(check: () => boolean, what: string, limitMs = 60_000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > limitMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('storage faults through the server', () => {
  afterEach(async () => {
    await stopAllServers();
    cleanupTempDirs();
  });

  it('kill -9 while a 64 MiB PUT streams: the key keeps its previous version, nothing partial, no temp files', async () => {
    const dir = makeTempDir('kill-put');
    const dataDir = join(dir, 'data');
    const config = configFor(dir, dataDir);
    const first = await startServer(config);
    const client = s3(first.url);
    await client.send(new PutObjectCommand({ Bucket: 'artifacts', Key: 'big.bin', Body: 'version one' }));

    // 16 MiB arrive at once; the rest never does, so the server is mid-stream when it is killed.
    const total = 64 * 1024 * 1024;
    const body = new Readable({ read() {} });
    body.push(Buffer.alloc(16 * 1024 * 1024, 7));
    const upload = client
      .send(new PutObjectCommand({ Bucket: 'artifacts', Key: 'big.bin', Body: body, ContentLength: total }))
      .catch((cause: unknown) => cause);
    await until(() => tempFiles(dataDir).some((file) => file.size >= 8 * 1024 * 1024), 'the body to reach disk');

    first.child.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');
    reapPackServices(first);
    expect(await upload).toBeInstanceOf(Error);
    body.destroy();
    client.destroy();

    const second = await startServer(config);
    const again = s3(second.url);
    try {
      expect((await bodyOf(again, 'big.bin')).toString()).toBe('version one');
      const listed = await again.send(new ListObjectsV2Command({ Bucket: 'artifacts' }));
      expect(listed.Contents?.map((item) => [item.Key, item.Size])).toEqual([['big.bin', 11]]);
      const artifacts = await api(second.url, TOKEN, 'GET', '/v1/artifacts?limit=100');
      expect((artifacts.body as { data: { key: string; size: number }[] }).data.map((a) => [a.key, a.size])).toEqual([
        ['big.bin', 11],
      ]);
      expect(tempFiles(dataDir)).toEqual([]);
    } finally {
      again.destroy();
    }
  });

  it('two concurrent PUTs of different bodies to one key leave exactly one, with matching ETag and sha256', async () => {
    const dir = makeTempDir('race-put');
    const server = await startServer(configFor(dir, join(dir, 'data')));
    const client = s3(server.url);
    try {
      const bodies = [Buffer.alloc(3 * 1024 * 1024, 1), Buffer.alloc(2 * 1024 * 1024, 2)];
      await Promise.all(
        bodies.map((Body) => client.send(new PutObjectCommand({ Bucket: 'artifacts', Key: 'race.bin', Body }))),
      );
      const stored = await bodyOf(client, 'race.bin');
      expect(bodies.some((candidate) => candidate.equals(stored))).toBe(true);

      const head = await client.send(new GetObjectCommand({ Bucket: 'artifacts', Key: 'race.bin' }));
      expect(head.ETag).toBe(`"${createHash('md5').update(stored).digest('hex')}"`);
      await (head.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray();

      const listed = await api(server.url, TOKEN, 'GET', '/v1/artifacts?limit=100');
      const items = (listed.body as { data: { key: string; hash: string; size: number }[] }).data;
      expect(items.filter((item) => item.key === 'race.bin')).toEqual([
        expect.objectContaining({ size: stored.length, hash: createHash('sha256').update(stored).digest('hex') }),
      ]);
    } finally {
      client.destroy();
    }
  });
});
