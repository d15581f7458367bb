import type { AddressInfo } from 'node:net';
import { CopyObjectCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { createAdaptorServer } from '@hono/node-server';
import {
  createInMemoryBlobStorage,
  createStaticS3Credentials,
  createStaticTokenResolver,
  createStubAppBindings,
} from '@kindgi/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../src/index.js';
import { AUTH_A, envelope, makeApp } from './helpers.js';

const ACCESS_KEY = 'AKIAKINDGISURFACE001';
const SECRET = 'surface-secret-0123456789';
const s3Credentials = createStaticS3Credentials({
  [ACCESS_KEY]: { secretKey: SECRET, tenantId: 'tenant-a', bucket: 'artifacts' },
});

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function listen(app: ReturnType<typeof createApp>): Promise<string> {
  const server = createAdaptorServer({ fetch: app.fetch });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function s3Client(origin: string): S3Client {
  const s3 = new S3Client({
    endpoint: `${origin}/s3`,
    forcePathStyle: true,
    region: 'us-east-1',
    credentials: { accessKeyId: ACCESS_KEY, secretAccessKey: SECRET },
    maxAttempts: 1,
  });
  closers.push(async () => s3.destroy());
  return s3;
}

describe('which surfaces are mounted', () => {
  it('without blobStorage neither /v1/artifacts nor /s3 exists', async () => {
    const { app } = makeApp({ blobStorage: undefined, s3Credentials });
    for (const path of ['/v1/artifacts', '/s3/artifacts/x']) {
      const res = await app.request(path, { headers: AUTH_A });
      expect(res.status).toBe(404);
      expect((await envelope(res)).code).toBe('route-not-found');
    }
  });

  it('without s3Credentials /s3 is not mounted', async () => {
    const { app } = makeApp();
    const res = await app.request('/s3/artifacts/x');
    expect(res.status).toBe(404);
    expect((await envelope(res)).code).toBe('route-not-found');
  });

  it('/s3 answers with S3 XML, untouched by the /v1 auth, idempotency and request-id middleware', async () => {
    const { app } = makeApp({ s3Credentials });
    const res = await app.request('/s3/artifacts/x', { method: 'PUT', headers: { 'idempotency-key': 'k' }, body: 'x' });
    expect(res.headers.get('content-type')).toContain('application/xml');
    expect(res.headers.get('x-request-id')).toBeNull();
    expect(await res.text()).toContain('<Error>');
  });

  it('a stub binding that is reached fails loudly (500, logged), naming the binding', async () => {
    const logged: unknown[] = [];
    const app = createApp({
      ...createStubAppBindings({ resolveToken: createStaticTokenResolver({ t: { tenantId: 'x' } }) }),
      logger: { warn: () => undefined, error: (_m, fields) => void logged.push(fields) },
    });
    const res = await app.request('/v1/runs/r1', { headers: { authorization: 'Bearer t' } });
    expect(res.status).toBe(500);
    expect(JSON.stringify(logged)).toContain('runStore.get()');
  });
});

describe('one blob, two faces', () => {
  it('an artifact uploaded over REST is read over S3, and an S3 upload is listed and downloaded over REST', async () => {
    const blobStorage = createInMemoryBlobStorage();
    const { app } = makeApp({ blobStorage, s3Credentials });
    const origin = await listen(app);
    const s3 = s3Client(origin);

    const form = new FormData();
    form.append('file', new Blob(['from rest'], { type: 'text/plain' }), 'rest.txt');
    const uploaded = await fetch(`${origin}/v1/artifacts`, { method: 'POST', headers: AUTH_A, body: form });
    expect(uploaded.status).toBe(201);
    const meta = (await uploaded.json()) as { blobId: string; key: string };
    const got = await s3.send(new GetObjectCommand({ Bucket: 'artifacts', Key: meta.key }));
    expect(await got.Body?.transformToString()).toBe('from rest');

    await s3.send(
      new PutObjectCommand({ Bucket: 'artifacts', Key: 'dir/s3.txt', Body: 'from s3', ContentType: 'text/plain' }),
    );
    const listed = (await (await fetch(`${origin}/v1/artifacts`, { headers: AUTH_A })).json()) as {
      data: { blobId: string; key: string }[];
    };
    const viaS3 = listed.data.find((artifact) => artifact.key === 'dir/s3.txt');
    expect(viaS3).toBeDefined();
    const downloaded = await fetch(`${origin}/v1/artifacts/${viaS3?.blobId}`, { headers: AUTH_A });
    expect(await downloaded.text()).toBe('from s3');
  });

  it('an S3 copy is a new artifact: listed and downloaded over REST under its own blobId', async () => {
    const { app } = makeApp({ blobStorage: createInMemoryBlobStorage(), s3Credentials });
    const origin = await listen(app);
    const s3 = s3Client(origin);
    await s3.send(new PutObjectCommand({ Bucket: 'artifacts', Key: 'orig.txt', Body: 'copied bytes' }));
    await s3.send(
      new CopyObjectCommand({ Bucket: 'artifacts', Key: 'dir/copy.txt', CopySource: 'artifacts/orig.txt' }),
    );
    const listed = (await (await fetch(`${origin}/v1/artifacts`, { headers: AUTH_A })).json()) as {
      data: { blobId: string; key: string }[];
    };
    const copy = listed.data.find((artifact) => artifact.key === 'dir/copy.txt');
    const original = listed.data.find((artifact) => artifact.key === 'orig.txt');
    expect(copy?.blobId).toBeDefined();
    expect(copy?.blobId).not.toBe(original?.blobId);
    const downloaded = await fetch(`${origin}/v1/artifacts/${copy?.blobId}`, { headers: AUTH_A });
    expect(await downloaded.text()).toBe('copied bytes');
    const got = await s3.send(new GetObjectCommand({ Bucket: 'artifacts', Key: 'dir/copy.txt' }));
    expect(await got.Body?.transformToString()).toBe('copied bytes');
  });
});
