import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { CreateBucketCommand, ListMultipartUploadsCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { type MotoServer, startMotoServer } from '@kindgi/test-services/moto';
import { startPostgres, type TestPostgres } from '@kindgi/test-services/postgres';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  cleanupTempDirs,
  makeTempDir,
  type RunningServer,
  startServer,
  stopAllServers,
  writeConfig,
} from './harness.js';

// The object-store backend holds at most its upload buffer budget of body bytes, whatever the number of
// uploads: 40 concurrent 16 MiB PUTs (640 MiB of bodies) through the real server (dist/main.js) onto moto
// against a 64 MiB budget, with the store answering and with it stalled (SIGSTOP). The budget is a quarter
// of the default so the load is five times the budget at a third of the bytes moto must take in. Figures go
// to the log; the bound asserted is generous.
const ACCESS_KEY = `AKIA${randomBytes(8).toString('hex').toUpperCase()}`;
const SECRET_KEY = randomBytes(20).toString('hex');
const BACKEND_SECRET = randomBytes(16).toString('hex');
const TOKEN = `tok-${randomBytes(12).toString('hex')}`;
const MiB = 1024 * 1024;
const UPLOADS = 40;
const BODY = randomBytes(16 * MiB);
const BUDGET = 64 * MiB;
// Uploads whose buffers the budget holds at once (8 MiB parts).
const HELD = BUDGET / (8 * MiB);
// The budget plus the server's own footprint and the sockets' buffers, with room to spare; without a budget
// every upload holds its 8 MiB part buffer (320 MiB of buffers here, over an idle footprint near 125 MiB).
const PEAK_BOUND = 360 * MiB;

let pg: TestPostgres;
let moto: MotoServer;
let databaseUrl: string;
let admin: S3Client;

beforeAll(async () => {
  [pg, moto] = await Promise.all([startPostgres(), startMotoServer()]);
  databaseUrl = await pg.createDatabase('blob_memory');
  admin = new S3Client({
    endpoint: moto.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'backend', secretAccessKey: BACKEND_SECRET },
  });
  await admin.send(new CreateBucketCommand({ Bucket: 'kindgi-blobs' }));
}, 120_000);

afterEach(async () => {
  // A stalled store must go on again, or the server's stop would wait on its requests.
  process.kill(moto.pid, 'SIGCONT');
  await stopAllServers();
  cleanupTempDirs();
});

afterAll(async () => {
  admin?.destroy();
  await Promise.all([moto?.stop(), pg?.stop()]);
});

function startBlobServer(label: string, blobs: Record<string, unknown> = {}): Promise<RunningServer> {
  const dir = makeTempDir(label);
  return startServer(
    writeConfig(dir, join(dir, 'data'), {
      packs: [],
      docs: false,
      drainMs: 2_000,
      s3Credentials: [{ accessKeyId: ACCESS_KEY, secretKey: SECRET_KEY, tenantId: 'acme', bucket: 'artifacts' }],
      tokens: [{ token: TOKEN, tenantId: 'acme' }],
      database: { url: databaseUrl },
      blobs: {
        kind: 's3',
        endpoint: moto.endpoint,
        bucket: 'kindgi-blobs',
        accessKeyId: 'backend',
        secretAccessKey: BACKEND_SECRET,
        forcePathStyle: true,
        ...blobs,
      },
    }),
  );
}

/** A field of /proc/<pid>/status (VmRSS, VmHWM) in bytes. */
function memoryOf(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (match === null) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(match[1]) * 1024;
}

/** An S3 client with a socket per upload (the SDK's default pool is 50) and one attempt per request. */
function s3Of(server: RunningServer): S3Client {
  return new S3Client({
    endpoint: `${server.url}/s3`,
    region: 'us-east-1',
    forcePathStyle: true,
    maxAttempts: 1,
    credentials: { accessKeyId: ACCESS_KEY, secretAccessKey: SECRET_KEY },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    requestHandler: { httpAgent: new Agent({ keepAlive: true, maxSockets: UPLOADS + 8 }), requestTimeout: 0 },
  });
}

type Outcome = { ok: true } | { ok: false; name: string; status: number | undefined };

/** Sends the uploads at once; `settled` counts the answers as they come. */
function putAll(client: S3Client, prefix: string): { outcomes: Promise<Outcome[]>; settled: () => number } {
  let settled = 0;
  const one = async (n: number): Promise<Outcome> => {
    try {
      await client.send(new PutObjectCommand({ Bucket: 'artifacts', Key: `${prefix}/${n}`, Body: BODY }));
      return { ok: true };
    } catch (cause) {
      const failure = cause as { name?: string; $metadata?: { httpStatusCode?: number } };
      return { ok: false, name: failure.name ?? 'Error', status: failure.$metadata?.httpStatusCode };
    } finally {
      settled++;
    }
  };
  return { outcomes: Promise.all(Array.from({ length: UPLOADS }, (_, n) => one(n))), settled: () => settled };
}

/** Resolves once `done` holds (looking every 100 ms), failing after `limitMs`: a bound on a wait, not a timing bet. */
async function until(done: () => boolean, what: string, limitMs: number): Promise<void> {
  const started = Date.now();
  while (!done()) {
    if (Date.now() - started > limitMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function summary(outcomes: readonly Outcome[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const outcome of outcomes) {
    const label = outcome.ok ? '200' : `${outcome.status} ${outcome.name}`;
    counts[label] = (counts[label] ?? 0) + 1;
  }
  return counts;
}

describe('the object-store backend bounds the bytes buffered across uploads (dist/main.js, moto)', () => {
  it(`${UPLOADS} concurrent 16 MiB PUTs with the store answering: the peak stays within the budget's bound`, async () => {
    const server = await startBlobServer('mem-answering', { uploadBufferBytes: BUDGET });
    const pid = server.child.pid!;
    const client = s3Of(server);
    try {
      const idle = memoryOf(pid, 'VmRSS');
      writeFileSync(`/proc/${pid}/clear_refs`, '5');
      const outcomes = await putAll(client, 'answering').outcomes;
      const peak = memoryOf(pid, 'VmHWM');
      console.log(`store answering: idle ${idle >> 20} MiB, peak ${peak >> 20} MiB`, summary(outcomes));
      // Each upload landed or was turned away with SlowDown (the budget spent past its wait); on a machine
      // loaded enough for the store's own requests to time out, InternalError too. Never anything else.
      for (const outcome of outcomes) {
        if (!outcome.ok) expect(['503 SlowDown', '500 InternalError']).toContain(`${outcome.status} ${outcome.name}`);
      }
      expect(outcomes.some((outcome) => outcome.ok)).toBe(true);
      expect(peak).toBeLessThan(PEAK_BOUND);
    } finally {
      client.destroy();
    }
  }, 300_000);

  it(`${UPLOADS} concurrent 16 MiB PUTs with the store stalled: the rest get 503 SlowDown, the peak stays bounded`, async () => {
    // A short wait for a buffer: the uploads past the budget are answered sooner (the wait is not what is tested).
    const server = await startBlobServer('mem-stalled', { uploadBufferBytes: BUDGET, uploadBufferWaitMs: 2_000 });
    const pid = server.child.pid!;
    const client = s3Of(server);
    try {
      const idle = memoryOf(pid, 'VmRSS');
      writeFileSync(`/proc/${pid}/clear_refs`, '5');
      process.kill(moto.pid, 'SIGSTOP');
      const sent = putAll(client, 'stalled');
      // The budget holds HELD uploads' buffers; every other upload waits its bounded time and is answered
      // SlowDown while those still hang on the store.
      await until(() => sent.settled() >= UPLOADS - HELD, 'the uploads past the budget to be answered', 120_000);
      const peak = memoryOf(pid, 'VmHWM');
      process.kill(moto.pid, 'SIGCONT');
      const outcomes = await sent.outcomes;
      console.log(`store stalled: idle ${idle >> 20} MiB, peak ${peak >> 20} MiB`, summary(outcomes));
      expect(outcomes.filter((outcome) => !outcome.ok && outcome.name === 'SlowDown').length).toBeGreaterThanOrEqual(
        UPLOADS - HELD,
      );
      expect(peak).toBeLessThan(PEAK_BOUND);
    } finally {
      client.destroy();
    }
  }, 300_000);
});

describe('an upload that finds the budget spent (dist/main.js, moto)', () => {
  it('is refused at once with its wait 0: REST 503 storage-unavailable + Retry-After, S3 503 SlowDown', async () => {
    const server = await startBlobServer('mem-spent', { uploadBufferBytes: 8 * MiB, uploadBufferWaitMs: 0 });
    const client = s3Of(server);
    // One upload holds the whole budget: 9 of its 12 MiB arrive, the rest waits on the test.
    const held = new Readable({ read() {} });
    held.push(BODY.subarray(0, 9 * MiB));
    const holding = client.send(
      new PutObjectCommand({ Bucket: 'artifacts', Key: 'held', Body: held, ContentLength: 12 * MiB }),
    );
    try {
      // Its first part reached the store: it holds its buffer until the body ends.
      const inProgress = async () =>
        ((await admin.send(new ListMultipartUploadsCommand({ Bucket: 'kindgi-blobs' }))).Uploads ?? []).length > 0;
      for (const started = Date.now(); !(await inProgress()); ) {
        if (Date.now() - started > 60_000) throw new Error('the held upload never reached the store');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const form = new FormData();
      form.append('file', new Blob([BODY.subarray(0, 1000)]), 'small.bin');
      const rest = await fetch(`${server.url}/v1/artifacts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}` },
        body: form,
      });
      expect(rest.status).toBe(503);
      expect(rest.headers.get('retry-after')).toBe('1');
      expect(await rest.json()).toMatchObject({ error: { code: 'storage-unavailable', details: { reason: 'busy' } } });
      // Past 64 KiB: a smaller object of a known length is kept in its PostgreSQL row and takes no buffer.
      const put = client.send(
        new PutObjectCommand({ Bucket: 'artifacts', Key: 'refused', Body: BODY.subarray(0, 70_000) }),
      );
      await expect(put).rejects.toMatchObject({ name: 'SlowDown', $metadata: { httpStatusCode: 503 } });

      held.push(BODY.subarray(9 * MiB, 12 * MiB));
      held.push(null);
      await holding;
      // The budget is free again: the next upload lands.
      await client.send(new PutObjectCommand({ Bucket: 'artifacts', Key: 'after', Body: 'small' }));
    } finally {
      held.destroy();
      client.destroy();
    }
  }, 120_000);
});
