import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { relay } from '../src/transport/relay.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

type Seen = { method?: string; url?: string; headers: IncomingHttpHeaders; body: string };

async function serve(handler: (seen: Seen, res: import('node:http').ServerResponse) => void) {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const entry = { method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString() };
      seen.push(entry);
      handler(entry, res);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server };
}

describe('relay', () => {
  it('forwards the body and the call headers, and returns status, body and the relayed headers', async () => {
    const target = await serve((_seen, res) => {
      res.writeHead(503, {
        'content-type': 'application/json; charset=utf-8',
        'retry-after': '1',
        'kindgi-duration-ms': '3',
        'x-private': 'not relayed',
      });
      res.end('{"error":"draining"}');
    });
    const outcome = await relay(
      { url: target.url, token: 'tok' },
      {
        body: '{"v":2}',
        deadlineMs: 1500,
        runId: 'run-1',
        requestId: 'req-1',
        traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      },
    );
    expect(outcome.kind).toBe('ok');
    if (outcome.kind !== 'ok') return;
    expect(outcome.value.status).toBe(503);
    expect(outcome.value.body.toString()).toBe('{"error":"draining"}');
    expect(outcome.value.headers).toEqual({
      'content-type': 'application/json; charset=utf-8',
      'retry-after': '1',
      'kindgi-duration-ms': '3',
    });
    const [seen] = target.seen;
    expect(seen?.method).toBe('POST');
    expect(seen?.url).toBe('/v1/invoke');
    expect(seen?.body).toBe('{"v":2}');
    expect(seen?.headers).toMatchObject({
      'kindgi-pack-token': 'tok',
      'content-type': 'application/json',
      'kindgi-timeout-ms': '1500',
      'kindgi-run-id': 'run-1',
      'kindgi-request-id': 'req-1',
      traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
    });
  });

  it('sends GET /v1/info without a body, and no content-type when told so', async () => {
    const target = await serve((_seen, res) => res.end('{}'));
    await relay({ url: target.url, token: 't' }, {});
    await relay({ url: target.url, token: 't' }, { body: 'x', contentType: null });
    expect(target.seen[0]).toMatchObject({ method: 'GET', url: '/v1/info', body: '' });
    expect(target.seen[1]?.headers['content-type']).toBeUndefined();
  });

  it('tells a refused connection (not delivered) from one that died mid-call (no reply)', async () => {
    const dying = await serve((_seen, res) => res.socket?.destroy());
    const died = await relay({ url: dying.url, token: 't' }, { body: '{}' });
    expect(died).toMatchObject({ kind: 'err', error: { code: 'no-reply' } });

    const gone = await serve(() => undefined);
    gone.server.close();
    const refused = await relay({ url: gone.url, token: 't' }, { body: '{}' });
    expect(refused).toMatchObject({ kind: 'err', error: { code: 'not-delivered' } });
  });

  it('abandons the call when the signal fires, and the service sees the connection close', async () => {
    let closed!: () => void;
    const sawClose = new Promise<void>((resolve) => {
      closed = resolve;
    });
    const target = await serve((_seen, res) => res.once('close', closed));
    const abort = new AbortController();
    const pending = relay({ url: target.url, token: 't' }, { body: '{}', signal: abort.signal });
    while (target.seen.length === 0) await new Promise((resolve) => setImmediate(resolve));
    abort.abort();
    expect(await pending).toMatchObject({ kind: 'err', error: { code: 'aborted' } });
    await sawClose;
    expect(await relay({ url: target.url, token: 't' }, { signal: abort.signal })).toMatchObject({
      kind: 'err',
      error: { code: 'aborted' },
    });
  });
});
