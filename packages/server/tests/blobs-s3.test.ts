import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { type CuttableRelay, type MotoServer, startMotoServer, startRelay } from '@kindgi/test-services/moto';
import { startPostgres, type TestPostgres } from '@kindgi/test-services/postgres';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  cleanupTempDirs,
  makeTempDir,
  type RunningServer,
  spawnServer,
  startServer,
  stderrOf,
  stopAllServers,
  writeConfig,
} from './harness.js';

// Two kindgi-server processes on one PostgreSQL and one S3-compatible store (moto), as docs/scaling.md
// describes; the store is reached through a TCP relay the outage test cuts.
const TOKEN = `tok-${randomBytes(12).toString('hex')}`;
const ACCESS_KEY = `AKIA${randomBytes(8).toString('hex').toUpperCase()}`;
const SECRET_KEY = randomBytes(20).toString('hex');
const BACKEND_SECRET = `backend-secret-${randomBytes(8).toString('hex')}`;

let pg: TestPostgres;
let moto: MotoServer;
let relay: CuttableRelay;
let databaseUrl: string;

beforeAll(async () => {
  [pg, moto] = await Promise.all([startPostgres(), startMotoServer()]);
  databaseUrl = await pg.createDatabase('scale_blobs');
  const admin = new S3Client({
    endpoint: moto.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'backend', secretAccessKey: BACKEND_SECRET },
  });
  await admin.send(new CreateBucketCommand({ Bucket: 'kindgi-blobs' }));
  admin.destroy();
  relay = await startRelay(moto.endpoint);
}, 120_000);

afterEach(async () => {
  await relay.restore();
  await stopAllServers();
  cleanupTempDirs();
});

afterAll(async () => {
  await relay?.close();
  await Promise.all([moto?.stop(), pg?.stop()]);
});

function blobsConfig(bucket = 'kindgi-blobs') {
  return {
    kind: 's3',
    endpoint: relay.endpoint,
    region: 'us-east-1',
    bucket,
    accessKeyId: 'backend',
    secretAccessKey: BACKEND_SECRET,
    forcePathStyle: true,
  };
}

function configFor(label: string, extra: Record<string, unknown> = {}): string {
  const dir = makeTempDir(label);
  return writeConfig(dir, join(dir, 'data'), {
    packs: [],
    docs: false,
    drainMs: 5_000,
    s3: { port: 0 },
    tokens: [{ token: TOKEN, tenantId: 'acme' }],
    s3Credentials: [{ accessKeyId: ACCESS_KEY, secretKey: SECRET_KEY, tenantId: 'acme', bucket: 'artifacts' }],
    database: { url: databaseUrl },
    blobs: blobsConfig(),
    ...extra,
  });
}

function s3Of(server: RunningServer): S3Client {
  return new S3Client({
    endpoint: `${server.url}/s3`,
    region: 'us-east-1',
    forcePathStyle: true,
    maxAttempts: 1,
    credentials: { accessKeyId: ACCESS_KEY, secretAccessKey: SECRET_KEY },
  });
}

async function uploadRest(server: RunningServer, name: string, bytes: Buffer): Promise<Response> {
  const form = new FormData();
  form.append('file', new Blob([bytes], { type: 'application/octet-stream' }), name);
  return fetch(`${server.url}/v1/artifacts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}` },
    body: form,
  });
}

async function readRest(server: RunningServer, blobId: string): Promise<Buffer> {
  const response = await fetch(`${server.url}/v1/artifacts/${blobId}`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  expect(response.status).toBe(200);
  return Buffer.from(await response.arrayBuffer());
}

async function readyz(server: RunningServer): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${server.url}/readyz`);
  return { status: response.status, body: await response.json() };
}

/** Probes `/readyz` until `done` holds (every 200 ms, at most 15 s: well past the probe's cache and timeout). */
async function readyzUntil(
  server: RunningServer,
  done: (answer: { status: number; body: unknown }) => boolean,
): Promise<{ status: number; body: unknown }> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const answer = await readyz(server);
    if (done(answer) || Date.now() > deadline) return answer;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('kindgi-server with blobs in S3 and metadata in PostgreSQL', () => {
  it('an artifact uploaded through A (REST and S3) is listed and read byte for byte through B', async () => {
    const [a, b] = await Promise.all([startServer(configFor('a')), startServer(configFor('b'))]);
    const restBytes = randomBytes(300_000);
    const uploaded = await uploadRest(a, 'report.bin', restBytes);
    expect(uploaded.status).toBe(201);
    const { blobId } = (await uploaded.json()) as { blobId: string };

    const s3Bytes = randomBytes(6 * 1024 * 1024 + 123);
    const viaA = s3Of(a);
    const viaB = s3Of(b);
    try {
      await viaA.send(new PutObjectCommand({ Bucket: 'artifacts', Key: 'reports/big.bin', Body: s3Bytes }));
      const got = await viaB.send(new GetObjectCommand({ Bucket: 'artifacts', Key: 'reports/big.bin' }));
      expect(Buffer.from(await got.Body!.transformToByteArray()).equals(s3Bytes)).toBe(true);
    } finally {
      viaA.destroy();
      viaB.destroy();
    }

    const listed = await fetch(`${b.url}/v1/artifacts?limit=100`, { headers: { authorization: `Bearer ${TOKEN}` } });
    const page = (await listed.json()) as { data: { blobId: string; key: string; size: number }[] };
    expect(page.data.map((meta) => meta.size).sort((x, y) => x - y)).toEqual([restBytes.length, s3Bytes.length]);
    expect((await readRest(b, blobId)).equals(restBytes)).toBe(true);
    const s3BlobId = page.data.find((meta) => meta.key === 'reports/big.bin')!.blobId;
    expect((await readRest(b, s3BlobId)).equals(s3Bytes)).toBe(true);
    // The secret of the store never reaches a log line.
    expect(stderrOf(a)).not.toContain(BACKEND_SECRET);
    expect(stderrOf(b)).not.toContain(BACKEND_SECRET);
  });

  it('the object store unreachable: 503 (REST) and InternalError (S3), none hangs, and service resumes', async () => {
    const server = await startServer(configFor('outage'));
    const before = randomBytes(10_000);
    const stored = await uploadRest(server, 'before.bin', before);
    expect(stored.status).toBe(201);
    const { blobId } = (await stored.json()) as { blobId: string };

    await relay.cut();
    const refused = await uploadRest(server, 'during.bin', randomBytes(1000));
    expect(refused.status).toBe(503);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('storage-unavailable');
    const read = await fetch(`${server.url}/v1/artifacts/${blobId}`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(read.status).toBe(503);
    await read.body?.cancel();
    const s3 = s3Of(server);
    try {
      // Past 64 KiB: a smaller object would be kept in its PostgreSQL row, needing no object store.
      const put = s3.send(new PutObjectCommand({ Bucket: 'artifacts', Key: 'during', Body: randomBytes(70_000) }));
      await expect(put).rejects.toMatchObject({ name: 'InternalError', $metadata: { httpStatusCode: 500 } });

      await relay.restore();
      expect((await readRest(server, blobId)).equals(before)).toBe(true);
      await s3.send(new PutObjectCommand({ Bucket: 'artifacts', Key: 'after', Body: 'back' }));
      const got = await s3.send(new GetObjectCommand({ Bucket: 'artifacts', Key: 'after' }));
      expect(await got.Body!.transformToString()).toBe('back');
    } finally {
      s3.destroy();
    }
    expect(stderrOf(server)).not.toContain(BACKEND_SECRET);
  });

  it('/readyz is 503 naming the object store while it is cut, and 200 once it answers again', async () => {
    const server = await startServer(configFor('readyz'));
    expect(await readyz(server)).toMatchObject({ status: 200 });
    await relay.cut();
    // A probe may reuse the last lookup's answer for a moment (probes must not flood the store): poll, bounded.
    const cut = await readyzUntil(server, (answer) => answer.status !== 200);
    expect(cut.status).toBe(503);
    expect(cut.body).toMatchObject({
      error: { code: 'not-ready', details: { checks: { objectStore: { ok: false, message: expect.any(String) } } } },
    });
    expect(JSON.stringify(cut.body)).not.toContain('kindgi-blobs');
    await relay.restore();
    const back = await readyzUntil(server, (answer) => answer.status === 200);
    expect(back.body).toMatchObject({ status: 'ready', checks: { objectStore: { ok: true } } });
  });

  it('a wrong bucket at start: exit 1 naming the bucket, the secret masked', async () => {
    const server = spawnServer(['--config', configFor('wrong', { blobs: blobsConfig('no-such-bucket') })]);
    const exit = await server.exited;
    expect(exit.code).toBe(1);
    const failed = server.records.find((record) => record.event === 'boot-failed');
    expect(failed?.message).toContain('no-such-bucket');
    expect(stderrOf(server)).not.toContain(BACKEND_SECRET);
  });

  it('blobs in S3 without database.url is refused at start', async () => {
    const server = spawnServer(['--config', configFor('nodb', { database: {} })]);
    expect((await server.exited).code).toBe(1);
    expect(stderrOf(server)).toContain('database.url');
    expect(stderrOf(server)).not.toContain(BACKEND_SECRET);
  });
});
