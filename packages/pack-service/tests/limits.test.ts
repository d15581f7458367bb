import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createPackServiceClient } from '../src/client/client.js';
import { call, ctx, invokeBody, startTestService, type TestService, TOKEN } from './pack-helpers.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function started(options: Parameters<typeof startTestService>[0] = {}): Promise<TestService> {
  const svc = await startTestService(options);
  cleanups.push(() => svc.close());
  return svc;
}

describe('pack service: size and depth limits', () => {
  it('answers output-too-large for a reply past maxOutputBytes, and serves the next call', async () => {
    const svc = await started({ maxOutputBytes: 1_000 });
    const big = await call(svc.url, '/v1/invoke', { body: invokeBody('fixture.echo', { message: 'x'.repeat(2_000) }) });
    expect(big.status).toBe(200);
    expect(big.json).toMatchObject({ v: 2, kind: 'error', code: 'output-too-large', toolId: 'fixture.echo' });
    expect(big.json.message).toMatch(
      /^The result of `fixture\.echo` is 20\d\d bytes, over this service's limit of 1000 bytes$/,
    );
    const record = await svc.waitForRecord((r) => r.event === 'call' && r.outcome === 'output-too-large');
    expect(record).toMatchObject({ id: 'fixture.echo', level: 'warn' });
    // Multi-byte text is measured in bytes, not characters.
    const wide = await call(svc.url, '/v1/invoke', { body: invokeBody('fixture.echo', { message: 'é'.repeat(490) }) });
    expect(wide.json.code).toBe('output-too-large');
    const small = await call(svc.url, '/v1/invoke', { body: invokeBody('fixture.echo', { message: 'fits' }) });
    expect(small.json).toEqual({ v: 2, kind: 'result', output: { message: 'fits' } });
  });

  it('refuses input nested deeper than the protocol limit as malformed-message', async () => {
    const svc = await started();
    const depth = 10_000;
    const body = invokeBody('fixture.ctx', 0).replace('"input":0', `"input":${'['.repeat(depth)}${']'.repeat(depth)}`);
    const reply = await call(svc.url, '/v1/invoke', { body });
    expect(reply.status).toBe(200);
    expect(reply.json).toMatchObject({ kind: 'error', code: 'malformed-message' });
    expect(reply.json.message).toBe('Message nests arrays and objects deeper than 256 levels');
  });
});

describe('protocol client: reply cap', () => {
  async function server(handler: Parameters<typeof createServer>[1]): Promise<string> {
    const srv: Server = createServer(handler);
    await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
    cleanups.push(
      () =>
        new Promise((resolve) => {
          srv.closeAllConnections();
          srv.close(resolve);
        }),
    );
    return `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
  }

  it('fails a reply past maxReplyBytes with pack-reply-too-large, by content-length or while streaming', async () => {
    const body = JSON.stringify({ v: 2, kind: 'result', output: { text: 'y'.repeat(5_000) } });
    const declared = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
    // A chunked reply that would never end: the client must stop reading on its own.
    let written = 0;
    const endless = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const pump = () => {
        while (written < 50_000_000 && res.write('z'.repeat(64 * 1024))) written += 64 * 1024;
        if (written < 50_000_000 && !res.destroyed) res.once('drain', pump);
      };
      res.write('{"v":2,"kind":"result","output":"');
      pump();
    });
    for (const url of [declared, endless]) {
      const client = createPackServiceClient({ url, token: TOKEN, maxReplyBytes: 4_096 });
      cleanups.push(() => client.close());
      const reply = await client.invoke({ tool: 'fixture.echo', input: {}, ctx });
      expect(reply).toMatchObject({ kind: 'err', error: { code: 'pack-reply-too-large' } });
    }
    expect(written).toBeLessThan(50_000_000);
  });

  it('reads a reply within the cap as usual', async () => {
    const url = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ v: 2, kind: 'result', output: { ok: true } }));
    });
    const client = createPackServiceClient({ url, token: TOKEN, maxReplyBytes: 4_096 });
    cleanups.push(() => client.close());
    expect(await client.invoke({ tool: 'fixture.echo', input: {}, ctx })).toEqual({
      kind: 'ok',
      value: { v: 2, kind: 'result', output: { ok: true } },
    });
  });
});
