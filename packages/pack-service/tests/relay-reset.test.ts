import type { AddressInfo } from 'node:net';
import { createServer, type Server, type Socket } from 'node:net';
import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { createPackServiceClient } from '../src/client/client.js';
import { relay } from '../src/transport/relay.js';

const open: { server: Server; sockets: Set<Socket> }[] = [];
afterEach(async () => {
  for (const { server, sockets } of open.splice(0)) {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  }
});

const REPLY = '{"v":2,"kind":"result","output":"ran"}';

/** Whole requests in `buffer` (head and `content-length` body), and what is left of it. */
function takeRequests(buffer: string): { count: number; rest: string } {
  let count = 0;
  let rest = buffer;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) return { count, rest };
    const length = Number(/content-length: *(\d+)/i.exec(rest.slice(0, end))?.[1] ?? 0);
    if (rest.length < end + 4 + length) return { count, rest };
    rest = rest.slice(end + 4 + length);
    count++;
  }
}

/**
 * A raw HTTP/1.1 server that answers each request on a kept-alive connection, except that `resetReuse`
 * decides, per connection, whether a request after the first on it is answered with a TCP reset instead:
 * the way a service that has just closed an idle kept-alive connection answers its reuse.
 */
async function rawService(resetReuse: (connection: number) => boolean) {
  const sockets = new Set<Socket>();
  const counts = { connections: 0, answered: 0, reset: 0 };
  const server = createServer((socket) => {
    sockets.add(socket);
    const connection = ++counts.connections;
    let served = 0;
    let buffer = '';
    socket.on('error', () => undefined);
    socket.on('data', (chunk) => {
      const taken = takeRequests(buffer + chunk.toString('latin1'));
      buffer = taken.rest;
      for (let i = 0; i < taken.count; i++) {
        if (resetReuse(connection) && (served > 0 || connection > 1)) {
          counts.reset++;
          socket.resetAndDestroy();
          return;
        }
        served++;
        counts.answered++;
        socket.write(
          `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${REPLY.length}\r\n\r\n${REPLY}`,
        );
      }
    });
  });
  open.push({ server, sockets });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, counts };
}

describe('relay: a reset before any reply', () => {
  it('tries a call reset on a kept-alive connection once more on a new connection, which answers it', async () => {
    const service = await rawService((connection) => connection === 1);
    const dispatcher = new Agent({ connections: 1 });
    try {
      const target = { url: service.url, token: 't', dispatcher };
      expect(await relay(target, { body: '{}' })).toMatchObject({ kind: 'ok', value: { status: 200 } });
      const again = await relay(target, { body: '{}' });
      expect(again).toMatchObject({ kind: 'ok', value: { status: 200 } });
      expect(service.counts).toEqual({ connections: 2, answered: 2, reset: 1 });
    } finally {
      await dispatcher.close();
    }
  });

  it('counts a call reset twice as not delivered: the client answers pack-unavailable with Retry-After', async () => {
    const service = await rawService(() => true);
    const client = createPackServiceClient({ url: service.url, token: 't' });
    try {
      expect(await client.invoke({ tool: 'p.t', input: {}, ctx: { tenantId: 't', runId: 'r' } })).toMatchObject({
        kind: 'ok',
      });
      const reply = await client.invoke({ tool: 'p.t', input: {}, ctx: { tenantId: 't', runId: 'r' } });
      expect(reply).toMatchObject({ kind: 'err', error: { code: 'pack-unavailable', retryAfterMs: 1_000 } });
      expect(reply.kind === 'err' && reply.error.status).toBeUndefined();
      expect(service.counts.answered).toBe(1);
    } finally {
      await client.close();
    }
  });

  it('answers a refused connection pack-unavailable with Retry-After, as a front with no child does', async () => {
    const service = await rawService(() => false);
    const { server, sockets } = open.pop() as (typeof open)[number];
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
    const client = createPackServiceClient({ url: service.url, token: 't' });
    try {
      const reply = await client.invoke({ tool: 'p.t', input: {}, ctx: { tenantId: 't', runId: 'r' } });
      expect(reply).toMatchObject({ kind: 'err', error: { code: 'pack-unavailable', retryAfterMs: 1_000 } });
    } finally {
      await client.close();
    }
  });
});
