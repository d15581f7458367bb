import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ServerType, serve } from '@hono/node-server';
import { afterEach, expect, it } from 'vitest';
import { AUTH_A, deferred, makeApp } from './helpers.js';

let server: ServerType | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

it('over real HTTP, closing the connection mid-call aborts the tool call', async () => {
  const started = deferred();
  const aborted = deferred<unknown>();
  const { app } = makeApp(
    {},
    { hold: new Promise(() => undefined), started: () => started.resolve(), aborted: aborted.resolve },
  );
  const listening = deferred<AddressInfo>();
  server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => listening.resolve(info));
  const { port } = await listening.promise;
  const body = JSON.stringify({ input: { x: 1 } });
  const req = request({
    host: '127.0.0.1',
    port,
    method: 'POST',
    path: '/v1/tools/hold/invoke',
    headers: { ...AUTH_A, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
  });
  req.on('error', () => undefined);
  req.end(body);
  await started.promise;
  req.destroy();
  // Resolves only when the pack call's signal fired: the test fails by timeout otherwise.
  const reason = await aborted.promise;
  expect(String(reason)).toContain('Client connection prematurely closed');
});
