// Through the real `kindgi-server` process (dist/main.js): every piped stream on the S3 side failing mid-way
// fails only its own request, leaves nothing partial visible and the process serving (issue 13.1); `Expect`
// handling on both listeners (16.2); configured SigV4 regions (13.8); multipart expiry at start (13.11).
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BUCKET, errorCode, KEY_ID, rawS3, type S3TestServer, SECRET, signRequest } from './s3-harness.js';
import { type S3ServerProcess, startServerProcess } from './s3-process-harness.js';

const MiB = 1024 * 1024;
let server: S3ServerProcess;
let api: S3TestServer;
let s3Port: S3TestServer;

function target(url: string, basePath: string): S3TestServer {
  const parsed = new URL(url);
  return {
    endpoint: `${parsed.origin}${basePath}`,
    origin: parsed.origin,
    port: Number(parsed.port),
    storage: undefined as never,
    close: async () => undefined,
  };
}

/** Sends a request over a plain socket; with `abortAfter`, destroys it after that many body bytes. */
async function exchange(
  to: S3TestServer,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: Buffer,
  abortAfter?: number,
): Promise<string> {
  const socket = connect(to.port, '127.0.0.1');
  const head = [`${method} ${path} HTTP/1.1`, ...Object.entries(headers).map(([n, v]) => `${n}: ${v}`)];
  socket.write(`${[...head, 'connection: close'].join('\r\n')}\r\n\r\n`);
  if (abortAfter !== undefined) {
    await new Promise<void>((resolve) => socket.write(body.subarray(0, abortAfter), () => resolve()));
    socket.destroy();
    return '';
  }
  // Written without a half-close: the answer comes back before `connection: close` ends the socket.
  socket.write(body);
  const parts: Buffer[] = [];
  for await (const chunk of socket) parts.push(chunk as Buffer);
  return Buffer.concat(parts).toString('latin1');
}

const tmpDir = () => join(server.dataDir, 'objects', 'tmp');
const partsDir = () => join(server.dataDir, 'objects', 'parts');
/** Waits (bounded) until the server has cleaned up after an aborted body: no temporary file left. */
const settled = () => vi.waitFor(() => expect(readdirSync(tmpDir())).toEqual([]), { timeout: 30_000, interval: 50 });

async function stillServing(): Promise<void> {
  expect(server.alive(), server.log()).toBe(true);
  const data = randomBytes(1000);
  expect((await rawS3(api, { method: 'PUT', path: `/s3/${BUCKET}/alive`, body: data })).status).toBe(200);
  expect((await rawS3(api, { method: 'GET', path: `/s3/${BUCKET}/alive` })).body.equals(data)).toBe(true);
}

beforeAll(async () => {
  server = await startServerProcess({ KINDGI_SERVER_S3_REGIONS: 'eu-central-1' });
  api = target(server.url, '/s3');
  s3Port = target(server.s3Url, '');
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

describe('streams that fail mid-way fail only their request (13.1)', () => {
  it('PutObject: a body cut off mid-way stores nothing and keeps the previous version', async () => {
    const path = `/s3/${BUCKET}/cut`;
    expect((await rawS3(api, { method: 'PUT', path, body: 'previous' })).status).toBe(200);
    const body = randomBytes(4 * MiB);
    const headers = signRequest(api.port, { method: 'PUT', path, payloadHash: 'UNSIGNED-PAYLOAD' });
    await exchange(api, 'PUT', path, { ...headers, 'content-length': String(body.length) }, body, MiB);
    await settled();
    expect((await rawS3(api, { method: 'GET', path })).body.toString()).toBe('previous');
    await stillServing();
  });

  it('UploadPart: a part cut off mid-way is not recorded and leaves no part file', async () => {
    const path = `/s3/${BUCKET}/cut-part`;
    const started = await rawS3(api, { method: 'POST', path, query: 'uploads=' });
    const uploadId = /<UploadId>([^<]+)<\/UploadId>/.exec(started.body.toString())![1]!;
    const query = `partNumber=1&uploadId=${uploadId}`;
    const body = randomBytes(6 * MiB);
    const headers = signRequest(api.port, { method: 'PUT', path, query, payloadHash: 'UNSIGNED-PAYLOAD' });
    await exchange(api, 'PUT', `${path}?${query}`, { ...headers, 'content-length': String(body.length) }, body, MiB);
    await settled();
    const listed = await rawS3(api, { method: 'GET', path, query: `uploadId=${uploadId}` });
    expect(listed.status).toBe(200);
    expect(listed.body.toString()).not.toContain('<Part>');
    expect(readdirSync(partsDir())).toEqual([]);
    await stillServing();
  });

  it('aws-chunked: a malformed chunk mid-way answers 400 and stores nothing; a cut-off one too', async () => {
    const path = `/s3/${BUCKET}/chunked-bad`;
    const chunk = randomBytes(8192);
    const framed = Buffer.concat([
      Buffer.from(`${chunk.length.toString(16)}\r\n`),
      chunk,
      Buffer.from('\r\nnot-hex\r\n'),
      chunk,
      Buffer.from('\r\n0\r\n\r\n'),
    ]);
    const signed = signRequest(api.port, {
      method: 'PUT',
      path,
      payloadHash: 'STREAMING-UNSIGNED-PAYLOAD-TRAILER',
      headers: { 'content-encoding': 'aws-chunked', 'x-amz-decoded-content-length': String(2 * chunk.length) },
    });
    const answer = await exchange(api, 'PUT', path, { ...signed, 'content-length': String(framed.length) }, framed);
    expect(answer.slice(0, 12)).toBe('HTTP/1.1 400');
    await exchange(api, 'PUT', path, { ...signed, 'content-length': String(framed.length) }, framed, 4000);
    await settled();
    expect((await rawS3(api, { method: 'HEAD', path })).status).toBe(404);
    await stillServing();
  });

  it('GetObject: a client that goes away mid-download leaves the server serving the object', async () => {
    const path = `/s3/${BUCKET}/download`;
    const data = randomBytes(16 * MiB);
    expect((await rawS3(api, { method: 'PUT', path, body: data })).status).toBe(200);
    const headers = signRequest(api.port, { method: 'GET', path });
    const socket = connect(api.port, '127.0.0.1');
    socket.write(
      `GET ${path} HTTP/1.1\r\n${Object.entries(headers)
        .map(([n, v]) => `${n}: ${v}\r\n`)
        .join('')}\r\n`,
    );
    await new Promise<void>((resolve) => socket.once('data', () => resolve()));
    socket.destroy();
    const again = await rawS3(api, { method: 'GET', path });
    expect(createHash('md5').update(again.body).digest('hex')).toBe(createHash('md5').update(data).digest('hex'));
    await stillServing();
    expect(server.log()).not.toMatch(/uncaught|unhandled/i);
  });
});

describe('Expect headers (16.2)', () => {
  for (const [label, to, base] of [
    ['the main port', () => api, `/s3/${BUCKET}`],
    ['s3.port', () => s3Port, `/${BUCKET}`],
  ] as const) {
    it(`serves a request with an empty or unknown Expect normally on ${label}`, async () => {
      for (const expectation of ['', 'something-else']) {
        const path = `${base}/expect`;
        const signed = signRequest(to().port, { method: 'PUT', path, body: 'e' });
        const answer = await exchange(
          to(),
          'PUT',
          path,
          { ...signed, expect: expectation, 'content-length': '1' },
          Buffer.from('e'),
        );
        expect(answer.slice(0, 12), answer).toBe('HTTP/1.1 200');
      }
    });
  }
});

describe('SigV4 regions from the config (13.8)', () => {
  const client = (region: string) =>
    new S3Client({
      endpoint: server.s3Url,
      forcePathStyle: true,
      region,
      credentials: { accessKeyId: KEY_ID, secretAccessKey: SECRET },
      maxAttempts: 1,
    });

  it('accepts us-east-1 and the listed region; another answers AuthorizationHeaderMalformed', async () => {
    for (const region of ['us-east-1', 'eu-central-1']) {
      const s3 = client(region);
      await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: `region-${region}`, Body: 'x' }));
      s3.destroy();
    }
    const s3 = client('zz-fake-9');
    await expect(s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'r', Body: 'x' }))).rejects.toMatchObject({
      name: 'AuthorizationHeaderMalformed',
    });
    s3.destroy();
    const lambda = await rawS3(api, { method: 'GET', path: `/s3/${BUCKET}/r`, service: 'lambda' });
    expect(errorCode(lambda.body)).toBe('AuthorizationHeaderMalformed');
  });
});

describe('multipart expiry (13.11)', () => {
  it('aborts uploads older than s3.multipartExpiryMs at start, parts and all', async () => {
    const first = await startServerProcess({ KINDGI_SERVER_S3_MULTIPART_EXPIRY_MS: '1' });
    const to = target(first.url, '/s3');
    try {
      const path = `/s3/${BUCKET}/abandoned`;
      const started = await rawS3(to, { method: 'POST', path, query: 'uploads=' });
      const uploadId = /<UploadId>([^<]+)<\/UploadId>/.exec(started.body.toString())![1]!;
      const part = await rawS3(to, { method: 'PUT', path, query: `partNumber=1&uploadId=${uploadId}`, body: 'p' });
      expect(part.status).toBe(200);
      expect(readdirSync(join(first.dataDir, 'objects', 'parts'))).toHaveLength(1);
      await first.stop({ keepData: true });
      const second = await startServerProcess({ KINDGI_SERVER_S3_MULTIPART_EXPIRY_MS: '1' }, first.dataDir);
      try {
        const again = target(second.url, '/s3');
        const listed = await rawS3(again, { method: 'GET', path: `/s3/${BUCKET}`, query: 'uploads=' });
        expect(listed.status).toBe(200);
        expect(listed.body.toString()).not.toContain('<Upload>');
        expect(readdirSync(join(second.dataDir, 'objects', 'parts'))).toEqual([]);
      } finally {
        await second.stop();
      }
    } finally {
      await first.stop();
    }
  }, 90_000);
});
