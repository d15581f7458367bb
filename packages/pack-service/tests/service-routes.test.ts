import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, invokeBody, startTestService, type TestService, TOKEN } from './pack-helpers.js';

const JSON_TYPE = 'application/json; charset=utf-8';

describe('pack service routes and transport statuses', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService();
  });
  afterAll(() => svc.close());

  it('answers /healthz and /readyz without a token', async () => {
    const health = await call(svc.url, '/healthz', { headers: { 'kindgi-pack-token': '' } });
    expect([health.status, health.text]).toEqual([200, '{"status":"ok"}']);
    expect(health.headers.get('content-type')).toBe(JSON_TYPE);
    const ready = await call(svc.url, '/readyz?probe=1', { headers: { 'kindgi-pack-token': 'wrong' } });
    expect([ready.status, ready.text]).toEqual([200, '{"status":"ready"}']);
  });

  it('answers 404 with the request url, query string included, for an unknown path', async () => {
    const reply = await call(svc.url, '/v1/nope?x=1');
    expect([reply.status, reply.text]).toEqual([404, '{"error":"No route /v1/nope?x=1"}']);
    expect(reply.headers.get('content-type')).toBe(JSON_TYPE);
    // Routes match the exact path: a trailing slash is another path.
    expect((await call(svc.url, '/healthz/')).status).toBe(404);
  });

  it('answers 405 before checking the token', async () => {
    const post = await call(svc.url, '/v1/invoke', { method: 'GET', headers: { 'kindgi-pack-token': 'bad' } });
    expect([post.status, post.text]).toEqual([405, '{"error":"Use POST"}']);
    for (const path of ['/v1/info', '/healthz', '/readyz']) {
      const get = await call(svc.url, path, { method: 'POST', body: '{}', headers: { 'kindgi-pack-token': 'bad' } });
      expect([get.status, get.text]).toEqual([405, '{"error":"Use GET"}']);
    }
  });

  it('answers 401 for a missing, wrong or differently sized token', async () => {
    for (const token of ['', 'wrong', `${TOKEN}x`, TOKEN.toUpperCase()]) {
      const reply = await call(svc.url, '/v1/invoke', {
        body: invokeBody('fixture.echo', { message: 'hi' }),
        headers: { 'kindgi-pack-token': token },
      });
      expect([reply.status, reply.text]).toEqual([401, '{"error":"Bad pack token"}']);
      const info = await call(svc.url, '/v1/info', { headers: { 'kindgi-pack-token': token } });
      expect(info.status).toBe(401);
    }
    // `Authorization` is deliberately ignored.
    const bearer = await fetch(`${svc.url}/v1/info`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(bearer.status).toBe(401);
  });

  it('answers /v1/info with the pack, its tools and checks, and missingEnv', async () => {
    const reply = await call(svc.url, '/v1/info');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe(JSON_TYPE);
    expect(reply.json).toEqual({
      protocol: 2,
      packId: 'fixture',
      packVersion: '1.0.0',
      artifactVersion: '20260101.1',
      tools: [
        { id: 'fixture.ctx' },
        { id: 'fixture.echo', version: '1.0.0' },
        { id: 'fixture.env' },
        { id: 'fixture.gate' },
        { id: 'fixture.hold' },
        { id: 'fixture.logs' },
        { id: 'fixture.never' },
        { id: 'fixture.noisy' },
        { id: 'fixture.proc-environ' },
        { id: 'fixture.throws-later' },
        { id: 'fixture.throws-undefined' },
        { id: 'fixture.versioned', version: '1.0.0' },
        { id: 'fixture.versioned', version: '2.0.0' },
        { id: 'fixture.wait' },
      ],
      checks: ['fixture.checks.min-length', 'fixture.throws'],
      missingEnv: [],
    });
  });

  it('answers 415 when the content type is not JSON, after the token check', async () => {
    const reply = await call(svc.url, '/v1/invoke', {
      body: invokeBody('fixture.echo', { message: 'hi' }),
      headers: { 'content-type': 'text/plain' },
    });
    expect([reply.status, reply.text]).toEqual([415, '{"error":"Content-Type must be application/json"}']);
    const unauthorised = await call(svc.url, '/v1/invoke', {
      body: 'x',
      headers: { 'content-type': 'text/plain', 'kindgi-pack-token': 'bad' },
    });
    expect(unauthorised.status).toBe(401);
    const withCharset = await call(svc.url, '/v1/invoke', {
      body: invokeBody('fixture.echo', { message: 'hi' }),
      headers: { 'content-type': 'Application/JSON; charset=utf-8' },
    });
    expect(withCharset.status).toBe(200);
  });

  it('puts kindgi-duration-ms and kindgi-artifact-version on every 200 invoke reply', async () => {
    for (const body of [invokeBody('fixture.echo', { message: 'hi' }), 'not json', invokeBody('fixture.nope')]) {
      const reply = await call(svc.url, '/v1/invoke', { body });
      expect(reply.status).toBe(200);
      expect(reply.headers.get('content-type')).toBe(JSON_TYPE);
      expect(reply.headers.get('kindgi-artifact-version')).toBe('20260101.1');
      expect(reply.headers.get('kindgi-duration-ms')).toMatch(/^\d+$/);
    }
  });
});

describe('pack service 503 replies', () => {
  it('is not ready before prewarm, and /v1/info still answers', async () => {
    const svc = await startTestService();
    try {
      const { createPackService } = await import('../src/service/service.js');
      const cold = createPackService({
        index: (await import('./pack-helpers.js')).basicIndex(),
        resolveModule: (p) => p,
        token: TOKEN,
        env: { FIXTURE_REQUIRED: 'x' },
      });
      const { createServer } = await import('node:http');
      const server = createServer(cold.handle).listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      const ready = await call(url, '/readyz');
      expect([ready.status, ready.text, ready.headers.get('retry-after')]).toEqual([503, '{"error":"not ready"}', '1']);
      const invoke = await call(url, '/v1/invoke', { body: invokeBody('fixture.echo', { message: 'x' }) });
      expect([invoke.status, invoke.text, invoke.headers.get('retry-after')]).toEqual([
        503,
        '{"error":"not ready"}',
        '1',
      ]);
      expect((await call(url, '/v1/info')).status).toBe(200);
      server.closeAllConnections();
      server.close();
    } finally {
      await svc.close();
    }
  });

  it('with a required env name missing: strict answers 503 missing env, warn serves; both list it', async () => {
    const strict = await startTestService({ env: { FIXTURE_REQUIRED: '' } });
    const warn = await startTestService({ env: {}, envCheck: 'warn' });
    try {
      const body = invokeBody('fixture.echo', { message: 'x' });
      const ready = await call(strict.url, '/readyz');
      expect([ready.status, ready.text, ready.headers.get('retry-after')]).toEqual([
        503,
        '{"error":"missing env","missingEnv":["FIXTURE_REQUIRED"]}',
        '1',
      ]);
      const invoke = await call(strict.url, '/v1/invoke', { body });
      expect([invoke.status, invoke.text]).toEqual([503, '{"error":"missing env","missingEnv":["FIXTURE_REQUIRED"]}']);
      expect((await call(strict.url, '/v1/info')).json.missingEnv).toEqual(['FIXTURE_REQUIRED']);
      expect((await call(warn.url, '/readyz')).status).toBe(200);
      expect((await call(warn.url, '/v1/invoke', { body })).json).toEqual({
        v: 2,
        kind: 'result',
        output: { message: 'x' },
      });
      expect((await call(warn.url, '/v1/info')).json.missingEnv).toEqual(['FIXTURE_REQUIRED']);
      for (const svc of [strict, warn]) {
        const record = await svc.waitForRecord((r) => r.event === 'missing-env');
        expect(record).toMatchObject({ kind: 'missing-env', level: 'warn', names: ['FIXTURE_REQUIRED'] });
        expect(record.message).toBe("The pack's env.required names have no value: FIXTURE_REQUIRED");
      }
      expect(strict.records.filter((r) => r.event === 'missing-env')).toHaveLength(1);
    } finally {
      await strict.close();
      await warn.close();
    }
  });

  it('answers 503 draining once drain starts, before the env check', async () => {
    const svc = await startTestService({ env: {} });
    try {
      expect(await svc.service.drain(1000)).toBe(true);
      for (const path of ['/readyz', '/v1/invoke']) {
        const reply = await call(svc.url, path, path === '/readyz' ? {} : { body: invokeBody('fixture.echo') });
        expect([reply.status, reply.text, reply.headers.get('retry-after')]).toEqual([
          503,
          '{"error":"draining"}',
          '1',
        ]);
      }
      expect((await call(svc.url, '/healthz')).status).toBe(200);
      expect((await call(svc.url, '/v1/info')).status).toBe(200);
      // A bad token still loses to 401 first.
      const bad = await call(svc.url, '/v1/invoke', { body: '{}', headers: { 'kindgi-pack-token': 'no' } });
      expect(bad.status).toBe(401);
    } finally {
      await svc.close();
    }
  });
});
