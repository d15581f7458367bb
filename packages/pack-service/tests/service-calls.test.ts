import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, checkBody, invokeBody, startTestService, type TestService } from './pack-helpers.js';

const invoke = (svc: TestService, body: string, headers: Record<string, string> = {}) =>
  call(svc.url, '/v1/invoke', { body, headers });

describe('pack service: outcomes of pack code are 200 messages', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService();
  });
  afterAll(() => svc.close());

  it('runs a tool with input and output schemas', async () => {
    const reply = await invoke(svc, invokeBody('fixture.echo', { message: 'hello' }));
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({ v: 2, kind: 'result', output: { message: 'hello' } });
  });

  it('answers input-validation-failed with Ajv issues', async () => {
    const reply = await invoke(svc, invokeBody('fixture.echo', { message: '', extra: 1 }));
    expect(reply.status).toBe(200);
    expect(reply.json).toMatchObject({
      v: 2,
      kind: 'error',
      code: 'input-validation-failed',
      message: 'Tool "fixture.echo" input failed validation',
      toolId: 'fixture.echo',
    });
    const keywords = (reply.json.issues as { keyword: string }[]).map((issue) => issue.keyword).sort();
    expect(keywords).toEqual(['additionalProperties', 'minLength']);
  });

  it('answers the parser errors in order: JSON, object, v, kind, fields', async () => {
    const cases: [string, string, string][] = [
      ['{not json', 'malformed-message', 'Request body is not valid JSON'],
      ['[1,2]', 'malformed-message', 'Message must be a JSON object'],
      ['42', 'malformed-message', 'Message must be a JSON object'],
      ['"text"', 'malformed-message', 'Message must be a JSON object'],
      ['{"v":1,"kind":"invoke"}', 'unknown-protocol-version', 'Expected protocol v2, got 1'],
      ['{"v":2,"kind":"dance"}', 'unexpected-message-kind', 'Unknown request kind "dance"'],
      ['{"v":2,"kind":"invoke","tool":{},"ctx":{}}', 'malformed-message', '`tool.id` is required'],
      [
        '{"v":2,"kind":"invoke","tool":{"id":"x"},"ctx":{"tenantId":"t"}}',
        'malformed-message',
        '`ctx` needs string `tenantId` and `runId`',
      ],
      [
        '{"v":2,"kind":"check-invoke","check":{"id":"c"},"config":[]}',
        'malformed-message',
        '`config` must be an object',
      ],
    ];
    for (const [body, code, message] of cases) {
      const reply = await invoke(svc, body);
      expect(reply.status).toBe(200);
      expect(reply.json).toEqual({ v: 2, kind: 'error', code, message });
    }
  });

  it('answers tool-not-in-pack, and does not serve a tool the runtime runs itself (spec)', async () => {
    for (const id of ['fixture.nope', 'fixture.spec-only']) {
      const reply = await invoke(svc, invokeBody(id));
      expect(reply.json).toEqual({
        v: 2,
        kind: 'error',
        code: 'tool-not-in-pack',
        message: `This pack has no tool "${id}"`,
        toolId: id,
      });
    }
  });

  it('runs several versions of a tool side by side and names the mismatch', async () => {
    const v1 = await invoke(svc, invokeBody('fixture.versioned', {}, { version: '1.0.0' }));
    const v2 = await invoke(svc, invokeBody('fixture.versioned', {}, { version: '2.0.0' }));
    expect([v1.json.output, v2.json.output]).toEqual([{ version: '1.0.0' }, { version: '2.0.0' }]);
    const none = await invoke(svc, invokeBody('fixture.versioned'));
    expect(none.json).toEqual({
      v: 2,
      kind: 'error',
      code: 'tool-version-mismatch',
      message: 'Tool "fixture.versioned" has several versions in this pack (1.0.0, 2.0.0); the caller named none',
      toolId: 'fixture.versioned',
    });
    const wrong = await invoke(svc, invokeBody('fixture.versioned', {}, { version: '3.0.0' }));
    expect(wrong.json.message).toBe(
      'Tool "fixture.versioned" is 1.0.0, 2.0.0 in this pack; the caller asked for 3.0.0',
    );
    const unversioned = await invoke(svc, invokeBody('fixture.env', { name: 'X' }, { version: '1.0.0' }));
    expect(unversioned.json.message).toBe('Tool "fixture.env" is unversioned in this pack; the caller asked for 1.0.0');
    // The only version runs when the caller names none.
    const single = await invoke(svc, invokeBody('fixture.echo', { message: 'x' }));
    expect(single.json.kind).toBe('result');
  });

  it('answers handler-throw with a null cause for a thrown undefined', async () => {
    const reply = await invoke(svc, invokeBody('fixture.throws-undefined'));
    expect(reply.status).toBe(200);
    expect(reply.json).toMatchObject({
      v: 2,
      kind: 'error',
      code: 'handler-throw',
      toolId: 'fixture.throws-undefined',
      cause: null,
    });
    expect((await call(svc.url, '/healthz')).status).toBe(200);
  });

  it('runs checks by checkId and answers their errors with checkId', async () => {
    const passed = await invoke(svc, checkBody('fixture.checks.min-length', { minLength: 2 }, { output: 'abc' }));
    expect(passed.json).toEqual({ v: 2, kind: 'check-result', result: { passed: true } });
    const failed = await invoke(svc, checkBody('fixture.checks.min-length', { minLength: 5 }, { output: 'abc' }));
    expect(failed.json).toEqual({ v: 2, kind: 'check-result', result: { passed: false, reason: 'too short' } });
    expect(failed.headers.get('kindgi-artifact-version')).toBe('20260101.1');
    const invalid = await invoke(svc, checkBody('fixture.checks.min-length', { minLength: -1 }));
    expect(invalid.json).toMatchObject({ code: 'input-validation-failed', checkId: 'fixture.checks.min-length' });
    const throws = await invoke(svc, checkBody('fixture.throws', {}));
    expect(throws.json).toMatchObject({
      code: 'handler-throw',
      checkId: 'fixture.throws',
      cause: { message: 'check boom' },
    });
    const missing = await invoke(svc, checkBody('fixture.min-length', {}));
    expect(missing.json).toEqual({
      v: 2,
      kind: 'error',
      code: 'check-not-in-pack',
      message: 'This pack has no check "fixture.min-length"',
      checkId: 'fixture.min-length',
    });
  });

  it('gives a handler the ctx as sent plus abortSignal, with secrets hidden', async () => {
    const body = JSON.stringify({
      v: 2,
      kind: 'invoke',
      tool: { id: 'fixture.ctx' },
      input: {},
      ctx: { tenantId: 't', runId: 'r', projectId: 'p', custom: { a: 1 }, secrets: { apiKey: 'k' } },
    });
    const reply = await invoke(svc, body);
    expect(reply.json.output).toEqual({
      keys: ['abortSignal', 'custom', 'projectId', 'runId', 'tenantId'],
      json: { tenantId: 't', runId: 'r', projectId: 'p', custom: { a: 1 }, abortSignal: {} },
      hasSignal: true,
      secret: 'k',
    });
  });

  it('gives a handler only the secrets its needsSpec declares, logging the dropped names only', async () => {
    const body = JSON.stringify({
      v: 2,
      kind: 'invoke',
      tool: { id: 'fixture.ctx' },
      input: {},
      ctx: { tenantId: 't', runId: 'r-secrets', secrets: { apiKey: 'k', otherKey: 'other-value', zeta: 'z-value' } },
    });
    const reply = await invoke(svc, body);
    expect(reply.json.output).toMatchObject({ secret: 'k' });
    const dropped = await svc.waitForRecord((r) => r.event === 'secrets-dropped');
    expect(dropped).toMatchObject({ level: 'warn', toolId: 'fixture.ctx', names: ['otherKey', 'zeta'] });
    expect(JSON.stringify(dropped)).not.toMatch(/other-value|z-value/);
    // A tool that declares no secrets gets none of them.
    const echo = JSON.stringify({
      v: 2,
      kind: 'invoke',
      tool: { id: 'fixture.echo' },
      input: { message: 'hi' },
      ctx: { tenantId: 't', runId: 'r-secrets-2', secrets: { apiKey: 'k' } },
    });
    expect((await invoke(svc, echo)).json).toMatchObject({ kind: 'result' });
    const second = await svc.waitForRecord((r) => r.event === 'secrets-dropped' && r.toolId === 'fixture.echo');
    expect(second.names).toEqual(['apiKey']);
  });

  it('logs a call record per call, with the traceparent trace id and a fresh span', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const body = JSON.stringify({
      v: 2,
      kind: 'invoke',
      tool: { id: 'fixture.echo' },
      input: { message: 'traced' },
      ctx: { tenantId: 't-9', runId: 'run-9', requestId: 'req-9', projectId: '', orgId: 'o-9' },
    });
    await invoke(svc, body, { traceparent: `00-${traceId}-00f067aa0ba902b7-01` });
    const record = await svc.waitForRecord((r) => r.event === 'call' && r.runId === 'run-9');
    expect(record).toMatchObject({
      level: 'info',
      severity: 'INFO',
      subsystem: 'pack',
      event: 'call',
      kind: 'call',
      id: 'fixture.echo',
      toolId: 'fixture.echo',
      target: 'tool',
      outcome: 'ok',
      tenantId: 't-9',
      orgId: 'o-9',
      requestId: 'req-9',
      traceId,
      packId: 'fixture',
      artifactVersion: '20260101.1',
    });
    expect(record).not.toHaveProperty('projectId');
    expect(record.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(record.spanId).not.toBe('00f067aa0ba902b7');
    expect(record.message).toMatch(/^tool fixture\.echo ok \d+ms$/);
    expect(typeof record.time).toBe('string');

    await invoke(svc, checkBody('fixture.throws', {}));
    const check = await svc.waitForRecord((r) => r.event === 'call' && r.id === 'fixture.throws');
    expect(check).toMatchObject({
      level: 'warn',
      target: 'check',
      checkId: 'fixture.throws',
      outcome: 'handler-throw',
    });
    expect(check).not.toHaveProperty('tenantId');
    expect(check).not.toHaveProperty('runId');

    // A check-invoke carries no ctx: its record takes the caller's ids from the transport headers.
    await invoke(svc, checkBody('fixture.checks.min-length', { minLength: 1 }, { output: 'x' }), {
      'kindgi-run-id': 'run-check-1',
      'kindgi-request-id': 'req-check-1',
    });
    const withIds = await svc.waitForRecord((r) => r.event === 'call' && r.runId === 'run-check-1');
    expect(withIds).toMatchObject({ target: 'check', id: 'fixture.checks.min-length', requestId: 'req-check-1' });
  });

  it('gives a tool ctx.log: pack.tool lines with the call ids and no event', async () => {
    const body = JSON.stringify({
      v: 2,
      kind: 'invoke',
      tool: { id: 'fixture.logs' },
      input: {},
      ctx: { tenantId: 't-log', runId: 'run-log' },
    });
    expect((await invoke(svc, body)).json).toEqual({ v: 2, kind: 'result', output: { logged: true } });
    const line = await svc.waitForRecord((r) => r.subsystem === 'pack.tool' && r.runId === 'run-log');
    expect(line).toMatchObject({
      level: 'info',
      message: 'from the tool',
      tenantId: 't-log',
      toolId: 'fixture.logs',
      detail: 1,
    });
    expect(line).not.toHaveProperty('event');
    expect(line.traceId).toMatch(/^[0-9a-f]{32}$/);
  });

  it('answers 413 for a body of 10 MiB + 1 byte, and stays healthy', async () => {
    const limit = 10 * 1024 * 1024;
    const head =
      '{"v":2,"kind":"invoke","tool":{"id":"fixture.echo"},"ctx":{"tenantId":"t","runId":"r"},"input":{"message":"';
    const tail = '"}}';
    const body = head + 'a'.repeat(limit + 1 - head.length - tail.length) + tail;
    expect(Buffer.byteLength(body)).toBe(limit + 1);
    const reply = await invoke(svc, body);
    expect([reply.status, reply.text]).toEqual([413, '{"error":"Request body too large"}']);
    // Exactly the limit is read and parsed (the echo schema accepts it).
    const atLimit = head + 'a'.repeat(limit - head.length - tail.length) + tail;
    const ok = await invoke(svc, atLimit);
    expect([ok.status, ok.json.kind]).toEqual([200, 'result']);
    expect(svc.service.inFlight()).toBe(0);
    expect((await call(svc.url, '/healthz')).status).toBe(200);
    expect((await invoke(svc, invokeBody('fixture.echo', { message: 'after' }))).json.output).toEqual({
      message: 'after',
    });
  });

  it('answers 500 with the message when the service itself fails', async () => {
    const broken = await startTestService({
      runners: {
        runHandler: () => Promise.reject(new Error('runner exploded')),
        runCheck: () => Promise.reject(new Error('runner exploded')),
        importModule: async () => ({ kind: 'ok', value: {} }),
      },
    });
    try {
      const reply = await invoke(broken, invokeBody('fixture.echo', { message: 'x' }));
      expect([reply.status, reply.text]).toEqual([500, '{"error":"runner exploded"}']);
      const logged = await broken.waitForRecord((r) => r.event === 'service-error');
      expect(logged).toMatchObject({
        level: 'error',
        message: 'The pack service failed while handling a call: runner exploded',
      });
      expect(broken.service.inFlight()).toBe(0);
      expect((await call(broken.url, '/healthz')).status).toBe(200);
    } finally {
      await broken.close();
    }
  });
});
