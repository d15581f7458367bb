import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createAdaptorServer } from '@hono/node-server';
import { s3CliEnvironment } from '@kindgi/testing';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_A, makeApp } from './helpers.js';

// A host application embedding Kindgi as Hono users embed apps, with nothing else changed.
const run = promisify(execFile);
const KEY_ID = 'AKIAKINDGIPREFIX0001';
const SECRET = 'kindgi/prefix+secret/0123456789abcdefgh';
const BUCKET = 'prefixed';

let origin: string;
let dir: string;
let close: () => Promise<void>;

beforeAll(async () => {
  const { app } = makeApp({
    s3Credentials: {
      resolve: async (id) => (id === KEY_ID ? { secretKey: SECRET, tenantId: 'tenant-a', bucket: BUCKET } : null),
    },
    openapi: { docs: true },
  });
  const host = new Hono();
  host.get('/', (c) => c.text('the host app'));
  host.route('/kindgi', app);
  const server = createAdaptorServer({ fetch: host.fetch });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
    });
  dir = mkdtempSync(join(tmpdir(), 'kindgi-prefix-'));
});

afterAll(async () => {
  await close?.();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("createApp mounted with host.route('/kindgi', app)", () => {
  it('serves the OpenAPI document publicly, naming the prefix as its server', async () => {
    const res = await fetch(`${origin}/kindgi/v1/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { servers?: { url: string }[]; paths: Record<string, unknown> };
    expect(doc.servers).toEqual([{ url: '/kindgi' }]);
    expect(Object.keys(doc.paths)).toContain('/v1/tools/{toolId}/invoke');
    expect((await fetch(`${origin}/kindgi/healthz`)).status).toBe(200);
    expect((await fetch(`${origin}/`)).status).toBe(200);
  });

  it('keeps every other /v1 route behind the bearer token', async () => {
    expect((await fetch(`${origin}/kindgi/v1/tools`)).status).toBe(401);
    expect((await fetch(`${origin}/kindgi/v1/tools`, { headers: AUTH_A })).status).toBe(200);
  });

  it('serves a docs page whose every referenced URL, fetched as a browser would, answers 200', async () => {
    const pageUrl = `${origin}/kindgi/docs`;
    const page = await fetch(pageUrl);
    expect(page.status).toBe(200);
    const html = await page.text();
    const assets = [...html.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((match) => match[1] as string);
    const documentUrl = /"url":\s*"([^"]+)"/.exec(html)?.[1];
    expect(assets.length).toBeGreaterThan(0);
    expect(documentUrl).toBeDefined();
    for (const reference of [...assets, documentUrl as string]) {
      const url = new URL(reference, pageUrl);
      expect(url.pathname.startsWith('/kindgi/'), reference).toBe(true);
      const res = await fetch(url);
      expect(res.status, url.href).toBe(200);
      await res.arrayBuffer();
    }
  });

  it('points Location headers under the prefix', async () => {
    const form = new FormData();
    form.set('file', new Blob([new Uint8Array([1, 2, 3])]), 'three.bin');
    const res = await fetch(`${origin}/kindgi/v1/artifacts`, { method: 'POST', headers: AUTH_A, body: form });
    expect(res.status).toBe(201);
    const location = res.headers.get('location') ?? '';
    expect(location).toMatch(/^\/kindgi\/v1\/artifacts\//);
    const read = await fetch(`${origin}${location}`, { headers: AUTH_A });
    expect(Buffer.from(await read.arrayBuffer())).toEqual(Buffer.from([1, 2, 3]));
  });

  it('serves the S3 surface to the AWS CLI at --endpoint-url <host>/kindgi/s3 (SigV4 over the full path)', async () => {
    const body = randomBytes(70_000);
    writeFileSync(join(dir, 'up.bin'), body);
    const env = s3CliEnvironment(dir, { keyId: KEY_ID, secret: SECRET });
    const aws = async (...args: string[]) =>
      (await run('aws', [...args, '--endpoint-url', `${origin}/kindgi/s3`], { env, cwd: dir })).stdout;
    await aws('s3', 'cp', join(dir, 'up.bin'), `s3://${BUCKET}/reports/up load.bin`);
    expect(await aws('s3', 'ls', `s3://${BUCKET}/reports/`)).toContain('up load.bin');
    await aws('s3', 'cp', `s3://${BUCKET}/reports/up load.bin`, join(dir, 'down.bin'));
    expect(readFileSync(join(dir, 'down.bin')).equals(body)).toBe(true);
  });
});
