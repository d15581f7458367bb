import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import type { BlobStorageBinding } from '@kindgi/bindings';
import { createInMemoryBlobStorage } from '@kindgi/testing';
import { afterEach, expect, it } from 'vitest';
import { AUTH_A, deferred, makeApp } from './helpers.js';
import { multipartParts } from './multipart.js';

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

it('a client that drops mid-upload leaves nothing stored, and the server keeps serving', async () => {
  const memory = createInMemoryBlobStorage();
  const putSettled = deferred<string>();
  const bytesArrived = deferred();
  const watching: BlobStorageBinding = {
    ...memory,
    put: async (tenantId, input) => {
      const source = input.bytes as AsyncIterable<Uint8Array>;
      const tapped = (async function* () {
        for await (const chunk of source) {
          bytesArrived.resolve();
          yield chunk;
        }
      })();
      const result = await memory.put(tenantId, { ...input, bytes: tapped });
      putSettled.resolve(result.kind === 'ok' ? 'stored' : result.error.code);
      return result;
    },
  };
  const { app } = makeApp({ blobStorage: watching });
  const server = createAdaptorServer({ fetch: app.fetch });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
    });
  const { port } = server.address() as AddressInfo;
  const { chunks, contentType } = multipartParts([
    { name: 'file', filename: 'big', bytes: new Uint8Array(256 * 1024) },
  ]);
  const req = request({
    host: '127.0.0.1',
    port,
    method: 'POST',
    path: '/v1/artifacts',
    headers: { ...AUTH_A, 'content-type': contentType, 'transfer-encoding': 'chunked' },
  });
  req.on('error', () => undefined);
  req.write(chunks[0]);
  req.write(chunks[1]?.subarray(0, 64 * 1024));
  await bytesArrived.promise;
  req.destroy();
  expect(await putSettled.promise).toBe('blob-body-failed');
  const listed = await memory.list('tenant-a', {});
  expect(listed.kind === 'ok' && listed.value.data).toEqual([]);
  const health = await fetch(`http://127.0.0.1:${port}/health`);
  expect(health.status).toBe(200);
});
