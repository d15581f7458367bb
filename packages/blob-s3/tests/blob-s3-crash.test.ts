import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ListMultipartUploadsCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import type { PostgresPool } from '@kindgi/store-postgres';
import { crashChildren } from '@kindgi/test-services/crash-child';
import { startMotoServer } from '@kindgi/test-services/moto';
import { startPostgres, type TestPostgres } from '@kindgi/test-services/postgres';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { S3BackendConfig } from '../src/index.js';
import { freshPool, motoBackend, openStorage, type TestBackend } from './backends.js';

const packageDir = dirname(dirname(fileURLToPath(import.meta.url)));
const MiB = 1024 * 1024;
let pg: TestPostgres;
let backend: TestBackend;
const children = crashChildren();
const pools: PostgresPool[] = [];

beforeAll(async () => {
  [pg, backend] = await Promise.all([startPostgres(), startMotoServer().then(motoBackend)]);
}, 120_000);

afterEach(async () => {
  children.killAll();
  await Promise.all(pools.splice(0).map((pool) => pool.end()));
});

afterAll(async () => {
  await Promise.all([backend?.stop(), pg?.stop()]);
});

function bucketClient(config: S3BackendConfig): S3Client {
  return new S3Client({
    endpoint: config.endpoint,
    region: config.region,
    forcePathStyle: true,
    credentials: { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey },
  });
}

/** Everything in the bucket: object keys and multipart uploads in progress. */
async function backendContents(config: S3BackendConfig) {
  const client = bucketClient(config);
  try {
    const objects = await client.send(new ListObjectsV2Command({ Bucket: config.bucket }));
    const uploads = await client.send(new ListMultipartUploadsCommand({ Bucket: config.bucket }));
    return {
      objects: (objects.Contents ?? []).map((entry) => entry.Key),
      uploads: (uploads.Uploads ?? []).map((entry) => entry.Key),
    };
  } finally {
    client.destroy();
  }
}

/** Starts the child putting a 24 MiB body and resolves once it is half-way through. */
function startStreaming(url: string, config: S3BackendConfig, key: string) {
  const args = [url, JSON.stringify(config), key, `${24 * MiB}`, `${12 * MiB}`];
  return children.start(join(packageDir, 'tests/fixtures/kill-mid-put.ts'), args, {
    cwd: packageDir,
    readyOn: ['streaming '],
  });
}

it('SIGKILL mid-way through a multipart put leaves the previous version; the sweep removes the partial bytes', async () => {
  const pool = await freshPool(pg);
  pools.push(pool);
  const config = await backend.freshBackend();
  const storage = await openStorage({ pool, backend: config, inlineMaxBytes: 0 });
  try {
    const before = await storage.putByKey('tenant-a', 'b', 'big.bin', {
      name: 'v1',
      contentType: 'text/plain',
      bytes: Buffer.from('previous version'),
    });
    expect(before.kind).toBe('ok');
    // The child writes through the same database as this test's storage.
    const poolUrl = (pool.options as { connectionString: string }).connectionString;
    await children.kill(await startStreaming(poolUrl, config, 'big.bin'));
    const during = await backendContents(config);
    expect(during.uploads).toHaveLength(1);

    const meta = await storage.headByKey('tenant-a', 'b', 'big.bin');
    expect(meta.kind === 'ok' && meta.value?.name).toBe('v1');
    const read = await storage.getByKey('tenant-a', 'b', 'big.bin');
    if (read.kind === 'err') throw new Error(read.error.message);
    expect(await new Response(read.value.stream).text()).toBe('previous version');
    const listing = await storage.listByPrefix('tenant-a', 'b', {});
    expect(listing.kind === 'ok' && listing.value.contents.map((m) => [m.key, m.size])).toEqual([['big.bin', 16]]);

    const swept = await storage.sweep();
    expect(swept).toEqual({ kind: 'ok', value: 1 });
    const after = await backendContents(config);
    expect(after.uploads).toEqual([]);
    expect(after.objects).toEqual([`blobs/${read.value.meta.blobId}`]);
    expect(await storage.sweep()).toEqual({ kind: 'ok', value: 0 });
  } finally {
    await storage.close();
  }
}, 120_000);

it('a write that outlives its grace period is swept and never becomes visible', async () => {
  const pool = await freshPool(pg);
  pools.push(pool);
  const config = await backend.freshBackend();
  const storage = await openStorage({ pool, backend: config, pendingGraceMs: 0 });
  try {
    let reached!: () => void;
    let release!: () => void;
    const atGate = new Promise<void>((resolve) => {
      reached = resolve;
    });
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    async function* body(): AsyncGenerator<Uint8Array> {
      yield Buffer.from('slow ');
      reached();
      await gate;
      yield Buffer.from('body');
    }
    const pending = storage.putByKey('tenant-a', 'b', 'slow', { name: 's', contentType: 'a/b', bytes: body() });
    await atGate;
    // Another server's sweep finds the body's grace period over and takes its object.
    expect(await storage.sweep()).toEqual({ kind: 'ok', value: 1 });
    release();
    const result = await pending;
    expect(result.kind === 'err' && result.error.code).toBe('blob-storage-error');
    expect(await storage.headByKey('tenant-a', 'b', 'slow')).toEqual({ kind: 'ok', value: null });
    await storage.sweep();
    expect((await backendContents(config)).objects).toEqual([]);
  } finally {
    await storage.close();
  }
});

it('replacing and deleting objects leaves no backend bytes behind', async () => {
  const pool = await freshPool(pg);
  pools.push(pool);
  const config = await backend.freshBackend();
  const storage = await openStorage({ pool, backend: config, inlineMaxBytes: 0 });
  try {
    for (const name of ['one', 'two', 'three']) {
      await storage.putByKey('tenant-a', 'b', 'k', { name, contentType: 'a/b', bytes: Buffer.from(name) });
    }
    const kept = await storage.put('tenant-a', { name: 'kept', contentType: 'a/b', bytes: Buffer.from('kept') });
    if (kept.kind === 'err') throw new Error(kept.error.message);
    expect((await backendContents(config)).objects).toHaveLength(2);
    await storage.deleteByKey('tenant-a', 'b', 'k');
    expect((await backendContents(config)).objects).toEqual([`blobs/${kept.value.blobId}`]);
    expect(await storage.sweep()).toEqual({ kind: 'ok', value: 0 });
  } finally {
    await storage.close();
  }
});
