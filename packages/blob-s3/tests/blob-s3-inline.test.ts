import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import type { PostgresPool } from '@kindgi/store-postgres';
import { type CuttableRelay, type MotoServer, startMotoServer, startRelay } from '@kindgi/test-services/moto';
import { startPostgres, type TestPostgres } from '@kindgi/test-services/postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { S3BackendConfig } from '../src/index.js';
import { freshPool, motoBackend, openStorage } from './backends.js';

// Objects of a known length up to 64 KiB (the default) live in their PostgreSQL row: never in the store,
// never in the intent log, and replacing or deleting them in either direction leaves nothing behind.
const KiB = 1024;
let pg: TestPostgres;
let moto: MotoServer;
let relay: CuttableRelay;
let pool: PostgresPool;

beforeAll(async () => {
  [pg, moto] = await Promise.all([startPostgres(), startMotoServer()]);
  relay = await startRelay(moto.endpoint);
  pool = await freshPool(pg);
}, 120_000);

afterAll(async () => {
  await pool?.end();
  await relay?.close();
  await Promise.all([moto?.stop(), pg?.stop()]);
});

async function bucketKeys(config: S3BackendConfig): Promise<string[]> {
  const client = new S3Client({
    endpoint: moto.endpoint,
    region: config.region,
    forcePathStyle: true,
    credentials: { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey },
  });
  try {
    const listed = await client.send(new ListObjectsV2Command({ Bucket: config.bucket }));
    return (listed.Contents ?? []).map((entry) => entry.Key ?? '');
  } finally {
    client.destroy();
  }
}

async function pendingCount(): Promise<number> {
  const { rows } = await pool.query<{ n: string }>('SELECT count(*) AS n FROM blob_pending_objects');
  return Number(rows[0]?.n);
}

const input = (bytes: Uint8Array) => ({ name: 'x', contentType: 'application/octet-stream', bytes });

async function readText(storage: Awaited<ReturnType<typeof openStorage>>, key: string): Promise<string> {
  const read = await storage.getByKey('t', 'b', key);
  if (read.kind === 'err') throw new Error(read.error.message);
  return new Response(read.value.stream).text();
}

it('small objects stay in their row; replacing and deleting either way leaves nothing in the store', async () => {
  const config = await (await motoBackend(moto)).freshBackend();
  const storage = await openStorage({ pool, backend: config });
  try {
    const small = Buffer.alloc(64 * KiB, 'a');
    const big = Buffer.alloc(64 * KiB + 1, 'b');
    expect((await storage.putByKey('t', 'b', 'k', input(small))).kind).toBe('ok');
    expect(await bucketKeys(config)).toEqual([]);
    expect(await readText(storage, 'k')).toBe(small.toString());

    const replacedByBig = await storage.putByKey('t', 'b', 'k', input(big));
    if (replacedByBig.kind === 'err') throw new Error(replacedByBig.error.message);
    expect(await bucketKeys(config)).toEqual([`blobs/${replacedByBig.value.blobId}`]);
    expect(await readText(storage, 'k')).toBe(big.toString());

    // A declared length decides, whatever form the body takes.
    async function* streamed(): AsyncGenerator<Uint8Array> {
      yield Buffer.from('small ');
      yield Buffer.from('again');
    }
    const back = await storage.putByKey('t', 'b', 'k', { ...input(Buffer.alloc(0)), bytes: streamed(), size: 11 });
    expect(back.kind).toBe('ok');
    expect(await bucketKeys(config)).toEqual([]);
    const ranged = await storage.getByKey('t', 'b', 'k', { range: { start: 6, end: 10 } });
    if (ranged.kind === 'err') throw new Error(ranged.error.message);
    expect(await new Response(ranged.value.stream).text()).toBe('again');

    expect(await storage.deleteByKey('t', 'b', 'k')).toEqual({ kind: 'ok', value: { deleted: true } });
    expect(await storage.headByKey('t', 'b', 'k')).toEqual({ kind: 'ok', value: null });
    expect(await pendingCount()).toBe(0);
    expect(await storage.sweep()).toEqual({ kind: 'ok', value: 0 });
  } finally {
    await storage.close();
  }
});

it('a small body failing its checks stores nothing; an empty one is kept inline', async () => {
  const config = await (await motoBackend(moto)).freshBackend();
  const storage = await openStorage({ pool, backend: config });
  try {
    const long = await storage.putByKey('t', 'b', 'bad', { ...input(Buffer.from('twelve bytes')), size: 5 });
    expect(long.kind === 'err' && long.error.code).toBe('blob-size-mismatch');
    const md5 = await storage.putByKey('t', 'b', 'bad', {
      ...input(Buffer.from('body')),
      expectedMd5: '00000000000000000000000000000000',
    });
    expect(md5.kind === 'err' && md5.error.code).toBe('blob-hash-mismatch');
    expect(await storage.headByKey('t', 'b', 'bad')).toEqual({ kind: 'ok', value: null });
    expect((await storage.putByKey('t', 'b', 'empty', input(new Uint8Array(0)))).kind).toBe('ok');
    expect(await readText(storage, 'empty')).toBe('');
    expect(await bucketKeys(config)).toEqual([]);
    expect(await pendingCount()).toBe(0);
  } finally {
    await storage.close();
  }
});

it('small objects are written and read while the object store is unreachable', async () => {
  const config = await (await motoBackend(moto)).freshBackend();
  const storage = await openStorage({ pool, backend: { ...config, endpoint: relay.endpoint }, maxAttempts: 1 });
  try {
    await relay.cut();
    expect((await storage.putByKey('t', 'b', 'cut', input(Buffer.from('no store needed')))).kind).toBe('ok');
    expect(await readText(storage, 'cut')).toBe('no store needed');
    const big = await storage.putByKey('t', 'b', 'big', input(Buffer.alloc(65 * KiB)));
    expect(big.kind === 'err' && big.error.code).toBe('blob-storage-error');
  } finally {
    await relay.restore();
    await storage.close();
  }
});

it('refuses an inline limit it cannot keep', async () => {
  const config = await (await motoBackend(moto)).freshBackend();
  await expect(openStorage({ pool, backend: config, inlineMaxBytes: 2 * 1024 * 1024 })).rejects.toThrow(
    /inlineMaxBytes must be 0\.\.1048576/,
  );
});
