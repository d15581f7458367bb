import { once } from 'node:events';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { timeoutFrom } from '../src/service/call.js';
import {
  call,
  type FixtureState,
  fixtureState,
  invokeBody,
  startTestService,
  type TestService,
  TOKEN,
} from './pack-helpers.js';

/** Sends a request by hand (no keep-alive), so a test can trickle the body or drop the connection. */
function rawRequest(url: string, headers: Record<string, string> = {}) {
  const target = new URL('/v1/invoke', url);
  return request({
    host: target.hostname,
    port: target.port,
    path: target.pathname,
    method: 'POST',
    agent: false,
    headers: { 'kindgi-pack-token': TOKEN, 'content-type': 'application/json', ...headers },
  });
}

async function readReply(req: ReturnType<typeof request>): Promise<{ status: number; body: string }> {
  const [res] = (await once(req, 'response')) as [import('node:http').IncomingMessage];
  let body = '';
  res.setEncoding('utf8');
  for await (const chunk of res) body += chunk;
  return { status: res.statusCode ?? 0, body };
}

describe('pack service faults', () => {
  let svc: TestService;
  let fixture: FixtureState;
  beforeAll(async () => {
    svc = await startTestService();
    fixture = await fixtureState();
  });
  afterAll(() => svc.close());

  it('answers deadline-exceeded on time for a handler that never resolves, and fires its signal', async () => {
    const started = once(fixture.bus, 'start');
    const reply = await call(svc.url, '/v1/invoke', {
      body: invokeBody('fixture.never', { n: 1 }),
      headers: { 'kindgi-timeout-ms': '50' },
    });
    const [{ signal }] = (await started) as [{ signal: AbortSignal }];
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({
      v: 2,
      kind: 'error',
      code: 'deadline-exceeded',
      message: '`fixture.never` passed its deadline',
      toolId: 'fixture.never',
    });
    expect(reply.headers.get('kindgi-artifact-version')).toBe('20260101.1');
    expect(signal.aborted).toBe(true);
    expect((signal.reason as Error).name).toBe('TimeoutError');
    expect(svc.service.inFlight()).toBe(0);
    const record = await svc.waitForRecord((r) => r.event === 'call' && r.id === 'fixture.never');
    expect(record).toMatchObject({ outcome: 'deadline-exceeded', level: 'warn' });
  });

  it('logs handler-finished-late with afterMs when a handler resolves after its deadline', async () => {
    const aborted = once(fixture.bus, 'aborted');
    const reply = await call(svc.url, '/v1/invoke', {
      body: invokeBody('fixture.wait', { n: 'late' }),
      headers: { 'kindgi-timeout-ms': '30' },
    });
    expect(reply.json.code).toBe('deadline-exceeded');
    const [event] = (await aborted) as [{ name: string; message: string }];
    expect(event).toEqual({
      tool: 'wait',
      input: { n: 'late' },
      name: 'TimeoutError',
      message: '`fixture.wait` passed its deadline',
    });
    const late = await svc.waitForRecord((r) => r.event === 'handler-finished-late' && r.id === 'fixture.wait');
    expect(late).toMatchObject({
      level: 'warn',
      kind: 'handler-finished-late',
      target: 'tool',
      toolId: 'fixture.wait',
    });
    expect(typeof late.afterMs).toBe('number');
  });

  it('ignores a kindgi-timeout-ms that is not a positive integer (default deadline applies)', async () => {
    for (const value of ['0', '-5', 'abc', '1.5']) {
      const reply = await call(svc.url, '/v1/invoke', {
        body: invokeBody('fixture.echo', { message: value }),
        headers: { 'kindgi-timeout-ms': value },
      });
      expect(reply.json.output).toEqual({ message: value });
    }
  });

  it('cancels a call whose client disconnects: the signal fires and nothing is written', async () => {
    const started = once(fixture.bus, 'start');
    const aborted = once(fixture.bus, 'aborted');
    const before = svc.records.length;
    const req = rawRequest(svc.url);
    req.on('error', () => {});
    req.end(invokeBody('fixture.wait', { n: 'cancel' }));
    await started;
    req.destroy();
    const [event] = (await aborted) as [{ name: string; message: string }];
    expect(event).toMatchObject({ name: 'AbortError', message: '`fixture.wait` was cancelled' });
    const record = await svc.waitForRecord((r) => r.event === 'call' && r.outcome === 'cancelled');
    expect(record).toMatchObject({ id: 'fixture.wait', level: 'warn' });
    const late = (r: Record<string, unknown>) =>
      r.event === 'handler-finished-late' && svc.records.indexOf(r) >= before;
    expect(await svc.waitForRecord(late)).toMatchObject({ id: 'fixture.wait', target: 'tool' });
    expect(svc.service.inFlight()).toBe(0);
    expect((await call(svc.url, '/healthz')).status).toBe(200);
  });

  it('serves other calls while a slow-loris client trickles its body, then answers it', async () => {
    const req = rawRequest(svc.url);
    const body = invokeBody('fixture.echo', { message: 'trickled' });
    const replied = readReply(req);
    let sent = 0;
    // Trickle a few bytes, then prove the service still answers others before sending the next bit.
    while (sent < body.length) {
      const piece = body.slice(sent, sent + 7);
      await new Promise<void>((resolve) => req.write(piece, () => resolve()));
      sent += piece.length;
      if (sent % 35 === 0) {
        const other = await call(svc.url, '/v1/invoke', {
          body: invokeBody('fixture.echo', { message: `other ${sent}` }),
        });
        expect(other.json.output).toEqual({ message: `other ${sent}` });
      }
    }
    req.end();
    const reply = await replied;
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.body)).toEqual({ v: 2, kind: 'result', output: { message: 'trickled' } });
  });

  it('drops a body whose client leaves mid-upload without running anything', async () => {
    const req = rawRequest(svc.url, { 'content-length': '1000' });
    req.on('error', () => {});
    await new Promise<void>((resolve) => req.write('{"v":2,"kind":"inv', () => resolve()));
    req.destroy();
    expect((await call(svc.url, '/healthz')).status).toBe(200);
    expect((await call(svc.url, '/v1/invoke', { body: invokeBody('fixture.echo', { message: 'y' }) })).status).toBe(
      200,
    );
  });
});

describe('kindgi-timeout-ms', () => {
  it('takes a positive integer and falls back to the default (120000 in the service) otherwise', () => {
    expect(timeoutFrom('250', 120_000)).toBe(250);
    expect(timeoutFrom(' 7 ', 120_000)).toBe(7);
    for (const raw of [undefined, '', '0', '-1', '1.5', '1e3', 'soon']) expect(timeoutFrom(raw, 120_000)).toBe(120_000);
    // Beyond what a Node timer can hold, the deadline is capped instead of firing at once.
    expect(timeoutFrom('99999999999', 120_000)).toBe(2 ** 31 - 1);
  });
});

describe('pack service under 1,000 concurrent calls with a cap of 32', () => {
  it('answers the excess 503 overloaded, loses none, runs none twice, and still serves', async () => {
    const svc = await startTestService({ maxConcurrency: 32 });
    const fixture = await fixtureState();
    let open!: () => void;
    fixture.gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    fixture.runs.clear();
    let waiting = 0;
    const allWaiting = new Promise<void>((resolve) => {
      const onWaiting = () => {
        waiting++;
        if (waiting === 32) {
          fixture.bus.off('gate-waiting', onWaiting);
          resolve();
        }
      };
      fixture.bus.on('gate-waiting', onWaiting);
    });
    try {
      const overloaded: string[] = [];
      let allOverloaded!: () => void;
      const excessAnswered = new Promise<void>((resolve) => {
        allOverloaded = resolve;
      });
      const replies = Array.from({ length: 1000 }, async (_, i) => {
        const key = `k${i}`;
        const req = rawRequest(svc.url);
        const reply = readReply(req);
        req.end(invokeBody('fixture.gate', { key }));
        const { status, body } = await reply;
        if (status === 503) {
          expect(JSON.parse(body)).toEqual({ error: 'overloaded' });
          overloaded.push(key);
          if (overloaded.length === 968) allOverloaded();
        }
        return { key, status, body };
      });
      // The gate opens only when 32 calls are inside handlers and the other 968 have had their 503.
      await allWaiting;
      await excessAnswered;
      expect(svc.service.inFlight()).toBe(32);
      open();
      const results = await Promise.all(replies);
      const ok = results.filter((r) => r.status === 200);
      expect(results).toHaveLength(1000);
      expect(ok).toHaveLength(32);
      expect(overloaded).toHaveLength(968);
      for (const r of ok) expect(JSON.parse(r.body)).toEqual({ v: 2, kind: 'result', output: { key: r.key } });
      expect([...fixture.runs.values()].every((count) => count === 1)).toBe(true);
      expect([...fixture.runs.keys()].sort()).toEqual(ok.map((r) => r.key).sort());
      expect(svc.service.inFlight()).toBe(0);
      const after = await call(svc.url, '/v1/invoke', { body: invokeBody('fixture.echo', { message: 'still here' }) });
      expect(after.json.output).toEqual({ message: 'still here' });
    } finally {
      fixture.gate = null;
      await svc.close();
    }
  });
});
