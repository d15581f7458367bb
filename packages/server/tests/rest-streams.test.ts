import { createHash, randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { isAlive } from './harness.js';
import { api, readRunStream } from './http.js';
import { useServedServer } from './served-server.js';

const TOKEN = 'kgi_test_streams_0123456789abcdef';
const BOUNDARY = 'kindgi-streams-boundary';

interface ArtifactList {
  data: { blobId: string; name: string }[];
}

/** A multipart upload body whose `file` part is `file` (optionally cut off after `keep` bytes of the whole body). */
function multipartBody(file: Uint8Array, name: string): Buffer {
  return Buffer.concat([
    Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="name"\r\n\r\n${name}\r\n`),
    Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\n` +
        'Content-Type: application/octet-stream\r\n\r\n',
    ),
    file,
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
}

async function upload(url: string, body: Uint8Array): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${url}/v1/artifacts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    body,
  });
  return { status: response.status, body: await response.json() };
}

/** Opens a GET with node:http, resolves with the response once `minBytes` arrived; the caller destroys it. */
function startDownload(url: string, path: string, minBytes: number) {
  return new Promise<{ destroy(): void; received: number }>((resolve, reject) => {
    const target = new URL(path, url);
    const req = request(target, { headers: { authorization: `Bearer ${TOKEN}` } }, (res) => {
      let received = 0;
      res.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received >= minBytes) {
          res.pause();
          resolve({ destroy: () => req.destroy(), received });
        }
      });
      res.on('error', () => undefined);
      res.on('end', () => reject(new Error(`the body ended after ${received} bytes`)));
    });
    req.on('error', () => undefined);
    req.end();
  });
}

// Every stream the REST surface pipes, cut mid-way through the real process: the one request fails, the
// process and every other request carry on.
describe('REST streams broken mid-way (dist/main.js)', () => {
  const served = useServedServer('streams', TOKEN, 'tenant-s');

  it('a multipart body that ends inside the file part is 400 bad-input, stores nothing, and the server lives', async () => {
    const whole = multipartBody(randomBytes(200_000), 'cut.bin');
    for (const keep of [whole.length - 100, 300, 120_000]) {
      const reply = await upload(served().url, whole.subarray(0, keep));
      expect(reply.status).toBe(400);
      expect(reply.body).toMatchObject({ error: { code: 'bad-input' } });
    }
    expect(isAlive(served().child.pid as number)).toBe(true);
    const listed = await api(served().url, TOKEN, 'GET', '/v1/artifacts');
    expect(listed.status).toBe(200);
    expect((listed.body as ArtifactList).data).toEqual([]);
    // The same body, whole, is stored.
    const stored = await upload(served().url, whole);
    expect(stored.status).toBe(201);
  });

  it('a download the client drops mid-way frees the request and the next download is whole', async () => {
    const bytes = randomBytes(8 * 1024 * 1024);
    const stored = await upload(served().url, multipartBody(bytes, 'big.bin'));
    expect(stored.status).toBe(201);
    const { blobId } = stored.body as { blobId: string };
    for (let i = 0; i < 3; i++) {
      const partial = await startDownload(served().url, `/v1/artifacts/${blobId}`, 64 * 1024);
      expect(partial.received).toBeLessThan(bytes.length);
      partial.destroy();
    }
    const whole = await fetch(`${served().url}/v1/artifacts/${blobId}`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(whole.status).toBe(200);
    const got = Buffer.from(await whole.arrayBuffer());
    expect(createHash('sha256').update(got).digest('hex')).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(isAlive(served().child.pid as number)).toBe(true);
    // The docs page's script is streamed from a file too.
    const script = await startDownload(served().url, '/docs/scalar.js', 16 * 1024);
    script.destroy();
    const scriptWhole = await fetch(`${served().url}/docs/scalar.js`);
    expect(scriptWhole.status).toBe(200);
    expect((await scriptWhole.arrayBuffer()).byteLength).toBe(Number(scriptWhole.headers.get('content-length')));
    // An end before its start is unsatisfiable on REST, as its docs say (S3 ignores it, as AWS does).
    const backwards = await fetch(`${served().url}/v1/artifacts/${blobId}`, {
      headers: { authorization: `Bearer ${TOKEN}`, range: 'bytes=3-2' },
    });
    expect(backwards.status).toBe(416);
    expect(backwards.headers.get('content-range')).toBe(`bytes */${bytes.length}`);
    expect(await backwards.json()).toMatchObject({ error: { code: 'range-not-satisfiable' } });
  });

  it('an SSE client that goes away mid-run leaves the run running to completion', async () => {
    const started = await api(served().url, TOKEN, 'POST', '/v1/runs', {
      toolId: 'acme.slow-report',
      input: { steps: 4, stepMs: 150 },
    });
    expect(started.status).toBe(202);
    const { runId } = started.body as { runId: string };
    const partial = await startDownload(served().url, `/v1/runs/${runId}/stream`, 1);
    partial.destroy();
    // A second reader sees the whole journal to the terminal event.
    const events = await readRunStream(served().url, TOKEN, runId);
    expect(events.at(-1)?.event).toBe('run.completed');
    const run = await api(served().url, TOKEN, 'GET', `/v1/runs/${runId}`);
    expect(run.body).toMatchObject({ status: 'completed' });
  });
});
