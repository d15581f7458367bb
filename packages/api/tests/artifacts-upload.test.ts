import { createHash } from 'node:crypto';
import type { BlobStorageBinding } from '@kindgi/bindings';
import { createInMemoryBlobStorage } from '@kindgi/testing';
import { describe, expect, it } from 'vitest';
import { AUTH_A, deferred, envelope, makeApp } from './helpers.js';
import { chunkedBody, multipartParts } from './multipart.js';

const bytes = (text: string) => new TextEncoder().encode(text);

function form(fields: Record<string, string>, file?: { bytes: Uint8Array; filename?: string; type?: string }) {
  const data = new FormData();
  for (const [name, value] of Object.entries(fields)) data.append(name, value);
  if (file) data.append('file', new Blob([file.bytes], { type: file.type ?? '' }), file.filename ?? 'f.bin');
  return data;
}

const upload = (body: FormData | string, headers: Record<string, string> = AUTH_A): RequestInit => ({
  method: 'POST',
  headers,
  body,
});

describe('POST /v1/artifacts', () => {
  it('201 with the meta and a Location', async () => {
    const { app } = makeApp();
    const content = bytes('hello artifacts');
    const res = await app.request(
      '/v1/artifacts',
      upload(form({ name: 'greeting.txt', contentType: 'text/plain', tags: '{"kind":"demo"}' }, { bytes: content })),
    );
    expect(res.status).toBe(201);
    const meta = (await res.json()) as Record<string, unknown>;
    expect(meta).toMatchObject({
      tenantId: 'tenant-a',
      name: 'greeting.txt',
      contentType: 'text/plain',
      size: content.length,
      hash: createHash('sha256').update(content).digest('hex'),
      tags: { kind: 'demo' },
      bucket: 'artifacts',
      createdBy: 'user:alice',
    });
    expect(res.headers.get('location')).toBe(`/v1/artifacts/${meta.blobId}`);
  });

  it('defaults the name and type from the file part', async () => {
    const { app } = makeApp();
    const res = await app.request(
      '/v1/artifacts',
      upload(form({}, { bytes: bytes('x'), filename: 'r.csv', type: 'text/csv' })),
    );
    expect(await res.json()).toMatchObject({ name: 'r.csv', contentType: 'text/csv' });
  });

  it('streams the file to the binding before the request body has ended', async () => {
    const firstChunkStored = deferred();
    const memory = createInMemoryBlobStorage();
    const watching: BlobStorageBinding = {
      ...memory,
      put: (tenantId, input) => {
        const source = input.bytes as AsyncIterable<Uint8Array>;
        const tapped = (async function* () {
          for await (const chunk of source) {
            firstChunkStored.resolve();
            yield chunk;
          }
        })();
        return memory.put(tenantId, { ...input, bytes: tapped });
      },
    };
    const { app } = makeApp({ blobStorage: watching });
    const { chunks, contentType } = multipartParts([
      { name: 'name', value: 'big.bin' },
      { name: 'file', filename: 'big.bin', bytes: new Uint8Array(64 * 1024).fill(7) },
      { name: 'unused-tail', value: '' },
    ]);
    // The last chunks are only sent once the store has received file bytes: a buffering server would hang.
    const body = chunkedBody(chunks, async (index) => {
      if (index === chunks.length - 2) await firstChunkStored.promise;
    });
    const res = await app.request('/v1/artifacts', {
      method: 'POST',
      headers: { ...AUTH_A, 'content-type': contentType },
      body,
      duplex: 'half',
    } as RequestInit);
    // The late text field after the file is refused, and the stored blob is removed again.
    expect(res.status).toBe(400);
    expect((await envelope(res)).message).toContain('before the file');
    const listed = await memory.list('tenant-a', {});
    expect(listed.kind === 'ok' && listed.value.data).toEqual([]);
  });

  it('413 artifact-too-large with details.maxBytes from Content-Length', async () => {
    const { app } = makeApp({ artifactMaxBytes: 10 });
    const data = form({}, { bytes: new Uint8Array(400 * 1024) });
    const res = await app.request('/v1/artifacts', upload(data));
    expect(res.status).toBe(413);
    const error = await envelope(res);
    expect(error.code).toBe('artifact-too-large');
    expect(error.details).toEqual({ maxBytes: 10 });
  });

  it('413 artifact-too-large while streaming without Content-Length, and nothing is stored', async () => {
    const blobStorage = createInMemoryBlobStorage();
    const { app } = makeApp({ artifactMaxBytes: 1000, blobStorage });
    const { chunks, contentType } = multipartParts([{ name: 'file', filename: 'a', bytes: new Uint8Array(5000) }]);
    const res = await app.request('/v1/artifacts', {
      method: 'POST',
      headers: { ...AUTH_A, 'content-type': contentType },
      body: chunkedBody(chunks),
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect((await envelope(res)).details).toEqual({ maxBytes: 1000 });
    const listed = await blobStorage.list('tenant-a', {});
    expect(listed.kind === 'ok' && listed.value.data).toEqual([]);
  });

  it('400 blob-hash-mismatch when expectedHash differs', async () => {
    const { app } = makeApp();
    const res = await app.request(
      '/v1/artifacts',
      upload(form({ expectedHash: 'a'.repeat(64) }, { bytes: bytes('abc') })),
    );
    expect(res.status).toBe(400);
    const error = await envelope(res);
    expect(error.code).toBe('blob-hash-mismatch');
    expect(error.details).toMatchObject({ expected: 'a'.repeat(64) });
  });

  it.each([
    ['a malformed expectedHash', { expectedHash: 'ABC' }, 'validation-failed'],
    ['tags that are not JSON', { tags: '{nope' }, 'validation-failed'],
    ['tags with a non-string value', { tags: '{"n":1}' }, 'validation-failed'],
    ['an unknown field', { colour: 'red' }, 'unknown-field'],
    ['a bad contentType', { contentType: 'not a type' }, 'validation-failed'],
  ])('400 for %s', async (_label, fields, code) => {
    const { app } = makeApp();
    const res = await app.request('/v1/artifacts', upload(form(fields, { bytes: bytes('abc') })));
    expect(res.status).toBe(400);
    expect((await envelope(res)).code).toBe(code);
  });

  it('400 bad-input without a file part', async () => {
    const { app } = makeApp();
    const res = await app.request('/v1/artifacts', upload(form({ name: 'x' })));
    expect(res.status).toBe(400);
    expect((await envelope(res)).message).toContain("'file'");
  });

  it('400 bad-input for a non-multipart body', async () => {
    const { app } = makeApp();
    const res = await app.request('/v1/artifacts', {
      method: 'POST',
      headers: { ...AUTH_A, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(400);
    expect((await envelope(res)).code).toBe('bad-input');
  });

  it('400 bad-input for a broken multipart body', async () => {
    const { app } = makeApp();
    const res = await app.request('/v1/artifacts', {
      method: 'POST',
      headers: { ...AUTH_A, 'content-type': 'multipart/form-data; boundary=zzz' },
      body: '--zzz\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\nunterminated',
    });
    expect(res.status).toBe(400);
    expect((await envelope(res)).code).toBe('bad-input');
  });

  it('404 run-not-found for an ownerRunId of no run', async () => {
    const { app } = makeApp();
    const res = await app.request('/v1/artifacts', upload(form({ ownerRunId: 'run-missing' }, { bytes: bytes('a') })));
    expect(res.status).toBe(404);
    expect((await envelope(res)).code).toBe('run-not-found');
  });

  it('replays an idempotent upload without storing twice, and refuses another body', async () => {
    const blobStorage = createInMemoryBlobStorage();
    const { app } = makeApp({ blobStorage });
    const parts = multipartParts([{ name: 'file', filename: 'a.txt', bytes: bytes('same') }]);
    const send = (chunks: Uint8Array[]) =>
      app.request('/v1/artifacts', {
        method: 'POST',
        headers: { ...AUTH_A, 'content-type': parts.contentType, 'idempotency-key': 'up-1' },
        body: chunkedBody(chunks),
        duplex: 'half',
      } as RequestInit);
    const first = await send(parts.chunks);
    expect(first.status).toBe(201);
    const second = await send(parts.chunks);
    expect(second.status).toBe(201);
    expect(second.headers.get('x-idempotent-replay')).toBe('true');
    expect(await second.json()).toEqual(await first.json());
    const other = multipartParts([{ name: 'file', filename: 'a.txt', bytes: bytes('different') }]);
    const third = await send(other.chunks);
    expect(third.status).toBe(409);
    expect((await envelope(third)).code).toBe('idempotency-key-body-mismatch');
    const listed = await blobStorage.list('tenant-a', {});
    expect(listed.kind === 'ok' && listed.value.data.length).toBe(1);
  });
});
