import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createPackServiceClient, type PackServiceClient } from '../src/client/client.js';

type Seen = { url?: string; headers: IncomingHttpHeaders; body: string };
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function service(answer: (seen: Seen, res: ServerResponse) => void) {
  const seen: Seen[] = [];
  let connections = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const entry = { url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString() };
      seen.push(entry);
      answer(entry, res);
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client: PackServiceClient = createPackServiceClient({ url, token: 'secret-token' });
  cleanups.push(
    () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
    () => client.close(),
  );
  return { client, seen, url, server, connections: () => connections };
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
}

const ctx = { tenantId: 't', runId: 'run-7', requestId: 'req-7' };

describe('pack service client', () => {
  it('sends v2 invoke and check-invoke messages with their headers over kept-alive connections', async () => {
    const { client, seen, connections } = await service((_seen, res) =>
      json(res, 200, { v: 2, kind: 'result', output: { ok: true } }),
    );
    const reply = await client.invoke({
      tool: { id: 'p.echo', version: '1.0.0' },
      input: { message: 'hi' },
      ctx,
      deadlineMs: 2500,
      traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
    });
    expect(reply).toEqual({ kind: 'ok', value: { v: 2, kind: 'result', output: { ok: true } } });
    await client.check({ check: 'p.checks.len', config: { minLength: 1 }, trace: { runId: 'run-8', output: 'x' } });
    await client.invoke({ tool: 'p.echo', input: {}, ctx });
    await client.invoke({ tool: 'p.echo', input: {}, ctx });

    expect(JSON.parse(seen[0]?.body ?? '')).toEqual({
      v: 2,
      kind: 'invoke',
      tool: { id: 'p.echo', version: '1.0.0' },
      input: { message: 'hi' },
      ctx,
    });
    expect(seen[0]?.headers).toMatchObject({
      'kindgi-pack-token': 'secret-token',
      'content-type': 'application/json',
      'kindgi-timeout-ms': '2500',
      'kindgi-run-id': 'run-7',
      'kindgi-request-id': 'req-7',
      traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
    });
    // Nothing reads a protocol header: the version travels as the message's `v`.
    expect(seen[0]?.headers['kindgi-protocol']).toBeUndefined();
    expect(JSON.parse(seen[1]?.body ?? '')).toEqual({
      v: 2,
      kind: 'check-invoke',
      check: { id: 'p.checks.len' },
      config: { minLength: 1 },
      trace: { runId: 'run-8', output: 'x' },
    });
    expect(seen[1]?.headers['kindgi-run-id']).toBe('run-8');
    expect(JSON.parse(seen[2]?.body ?? '').tool).toEqual({ id: 'p.echo' });
    // Keep-alive: the pool reuses its connections instead of opening one per call.
    expect(connections()).toBeLessThan(seen.length);
  });

  it('maps transport statuses to typed errors', async () => {
    const answers: Array<(res: ServerResponse) => void> = [
      (res) => json(res, 503, { error: 'draining' }, { 'retry-after': '2' }),
      (res) => json(res, 401, { error: 'Bad pack token' }),
      (res) => json(res, 502, { error: 'pack service died during the call' }),
      (res) => json(res, 413, { error: 'Request body too large' }),
      (res) => json(res, 200, 'not json'),
      (res) => json(res, 200, { v: 1, kind: 'result' }),
      (res) => json(res, 200, { v: 2, kind: 'error', code: 'handler-throw' }),
    ];
    const { client } = await service((_seen, res) => answers.shift()?.(res));
    const call = () => client.invoke({ tool: 'p.echo', input: {}, ctx });
    expect(await call()).toEqual({
      kind: 'err',
      error: {
        code: 'pack-unavailable',
        message: 'Pack service unavailable: draining',
        status: 503,
        retryAfterMs: 2000,
      },
    });
    expect(await call()).toMatchObject({ kind: 'err', error: { code: 'pack-auth-failed', status: 401 } });
    expect(await call()).toMatchObject({ kind: 'err', error: { code: 'pack-connection-failed', status: 502 } });
    expect(await call()).toMatchObject({
      kind: 'err',
      error: { code: 'pack-bad-reply', status: 413, message: 'Pack service answered HTTP 413: Request body too large' },
    });
    expect(await call()).toMatchObject({ kind: 'err', error: { code: 'pack-bad-reply', status: 200 } });
    // JSON that is no v2 message is the pack breaking the protocol: the protocol's own error, as a message.
    expect(await call()).toMatchObject({
      kind: 'ok',
      value: { kind: 'error', code: 'unknown-protocol-version', toolId: 'p.echo' },
    });
    expect(await call()).toMatchObject({ kind: 'ok', value: { kind: 'error', code: 'malformed-message' } });
  });

  it('answers a result without output, or nested past the depth limit, as malformed-message', async () => {
    // As text: JSON.stringify itself runs out of stack on a value this deep.
    const deep = `{"v":2,"kind":"result","output":${'['.repeat(5_000)}${']'.repeat(5_000)}}`;
    const answers: unknown[] = [{ v: 2, kind: 'result' }, deep];
    const { client } = await service((_seen, res) => json(res, 200, answers.shift()));
    for (const says of ['needs an `output`', 'deeper than 256 levels']) {
      const reply = await client.invoke({ tool: 'p.echo', input: {}, ctx });
      expect(reply).toMatchObject({
        kind: 'ok',
        value: { kind: 'error', code: 'malformed-message', toolId: 'p.echo' },
      });
      expect(reply.kind === 'ok' && reply.value.kind === 'error' ? reply.value.message : '').toContain(says);
    }
  });

  it('passes error messages through as messages, and reads info', async () => {
    const error = { v: 2, kind: 'error', code: 'tool-not-in-pack', message: 'This pack has no tool "x"' };
    const info = { protocol: 2, packId: 'p', packVersion: '1.0.0', artifactVersion: 'a', tools: [], checks: [] };
    const { client, seen } = await service((entry, res) => json(res, 200, entry.url === '/v1/info' ? info : error));
    expect(await client.invoke({ tool: 'x', input: {}, ctx })).toEqual({ kind: 'ok', value: error });
    expect(await client.info()).toEqual({ kind: 'ok', value: info });
    expect(seen[1]?.headers['kindgi-pack-token']).toBe('secret-token');
  });

  it('refuses an info reply that is not protocol 2 info', async () => {
    const { client } = await service((_seen, res) => json(res, 200, { protocol: 1 }));
    expect(await client.info()).toMatchObject({ kind: 'err', error: { code: 'pack-bad-reply' } });
  });

  it('aborts the HTTP request on the signal, and reports a refused connection as unavailable', async () => {
    let sawClose!: () => void;
    const closed = new Promise<void>((resolve) => {
      sawClose = resolve;
    });
    let arrived!: () => void;
    const received = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const target = await service((_seen, res) => {
      res.once('close', sawClose);
      arrived();
    });
    const abort = new AbortController();
    const pending = target.client.invoke({ tool: 'p.hold', input: {}, ctx, signal: abort.signal });
    await received;
    abort.abort();
    expect(await pending).toMatchObject({ kind: 'err', error: { code: 'pack-call-aborted' } });
    await closed;

    target.server.closeAllConnections();
    await new Promise((resolve) => target.server.close(resolve));
    const refused = await target.client.invoke({ tool: 'p.echo', input: {}, ctx });
    expect(refused).toMatchObject({ kind: 'err', error: { code: 'pack-unavailable' } });
  });
});
