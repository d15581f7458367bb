import { expect, it } from 'vitest';
import { invoke, type SuiteContext, toolCall } from '../context.js';
import { jsonHeaders, sendChecked } from '../http.js';
import { FIXTURE_CHECK_IDS, FIXTURE_TOOL_IDS } from './index-cases.js';

const JSON_TYPE = 'application/json; charset=utf-8';

/** Every route and transport status, in the order the service checks them. */
export function routeCases(context: SuiteContext): void {
  it('answers /healthz and /readyz without a token, ignoring the query string', async () => {
    const { url } = context.shared();
    const health = await sendChecked(url, '/healthz?probe=1');
    expect(health).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect(health.headers.get('content-type')).toBe(JSON_TYPE);
    expect(await sendChecked(url, '/readyz')).toMatchObject({ status: 200, body: { status: 'ready' } });
  });

  it('answers 404 for an unknown path, naming it', async () => {
    const { url } = context.shared();
    const reply = await sendChecked(url, '/v2/invoke?x=1');
    expect(reply).toMatchObject({ status: 404, body: { error: 'No route /v2/invoke?x=1' } });
    expect(reply.headers.get('content-type')).toBe(JSON_TYPE);
  });

  it('answers 405 for a wrong method before checking the token', async () => {
    const { url } = context.shared();
    expect(await sendChecked(url, '/v1/invoke')).toMatchObject({ status: 405, body: { error: 'Use POST' } });
    expect(await sendChecked(url, '/v1/info', { method: 'POST' })).toMatchObject({
      status: 405,
      body: { error: 'Use GET' },
    });
  });

  it('answers 401 without the token or with a wrong one, on both token routes', async () => {
    const { url, token } = context.shared();
    const bad = { error: 'Bad pack token' };
    expect(await sendChecked(url, '/v1/info')).toMatchObject({ status: 401, body: bad });
    expect(await sendChecked(url, '/v1/info', { headers: { 'kindgi-pack-token': `${token}x` } })).toMatchObject({
      status: 401,
      body: bad,
    });
    const noToken = await sendChecked(url, '/v1/invoke', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(toolCall('conformance.echo', { message: 'hi' })),
    });
    expect(noToken).toMatchObject({ status: 401, body: bad });
  });

  it('answers 415 when the content type is not JSON', async () => {
    const { url, token } = context.shared();
    const reply = await sendChecked(url, '/v1/invoke', {
      method: 'POST',
      headers: { 'kindgi-pack-token': token, 'content-type': 'text/plain' },
      body: JSON.stringify(toolCall('conformance.echo', { message: 'hi' })),
    });
    expect(reply).toMatchObject({ status: 415, body: { error: 'Content-Type must be application/json' } });
  });

  it('answers 413 for a body over 10 MiB', async () => {
    const { url, token } = context.shared();
    const message = 'x'.repeat(10 * 1024 * 1024);
    const reply = await sendChecked(url, '/v1/invoke', {
      method: 'POST',
      headers: jsonHeaders(token),
      body: JSON.stringify(toolCall('conformance.echo', { message })),
    });
    expect(reply).toMatchObject({ status: 413, body: { error: 'Request body too large' } });
  });

  it('answers GET /v1/info with the pack, its tools and checks, and missingEnv sorted', async () => {
    const { url, token } = context.shared();
    const reply = await sendChecked(url, '/v1/info', { headers: { 'kindgi-pack-token': token } });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe(JSON_TYPE);
    const info = reply.body as Record<string, unknown>;
    expect(info).toMatchObject({
      protocol: 2,
      packId: 'conformance',
      packVersion: '1.0.0',
      artifactVersion: 'conformance.1',
    });
    expect((info.tools as Array<{ id: string }>).map((tool) => tool.id).sort()).toEqual(FIXTURE_TOOL_IDS);
    expect(info.tools).toContainEqual({ id: 'conformance.echo', version: '1.0.0' });
    expect([...(info.checks as string[])].sort()).toEqual(FIXTURE_CHECK_IDS);
    if (info.missingEnv !== undefined) expect(info.missingEnv).toEqual([]);
  });

  it('answers every pack-code outcome with 200, kindgi-duration-ms and kindgi-artifact-version', async () => {
    const service = context.shared();
    for (const message of [toolCall('conformance.echo', { message: 'hi' }), toolCall('conformance.throws', {})]) {
      const reply = await invoke(service, message);
      expect(reply.status).toBe(200);
      expect(reply.headers.get('content-type')).toBe(JSON_TYPE);
      expect(reply.headers.get('kindgi-artifact-version')).toBe('conformance.1');
      expect(reply.headers.get('kindgi-duration-ms')).toMatch(/^\d+(\.\d+)?$/);
    }
  });

  it('answers a body that is not JSON with malformed-message', async () => {
    const { url, token } = context.shared();
    const reply = await sendChecked(url, '/v1/invoke', {
      method: 'POST',
      headers: jsonHeaders(token),
      body: '{"v":2,',
    });
    expect(reply).toMatchObject({
      status: 200,
      body: { v: 2, kind: 'error', code: 'malformed-message', message: 'Request body is not valid JSON' },
    });
  });

  it('checks a request in the published order', async () => {
    const service = context.shared();
    const cases: Array<[unknown, string, string]> = [
      [[1, 2], 'malformed-message', 'Message must be a JSON object'],
      [{ v: 1, kind: 'invoke' }, 'unknown-protocol-version', 'Expected protocol v2, got 1'],
      [{ v: 2, kind: 'run' }, 'unexpected-message-kind', 'Unknown request kind "run"'],
      [{ v: 2, kind: 'invoke', tool: {}, input: {}, ctx: {} }, 'malformed-message', '`tool.id` is required'],
      [
        { v: 2, kind: 'invoke', tool: { id: 'conformance.echo', version: 1 }, input: {}, ctx: {} },
        'malformed-message',
        '`tool.version` must be a string',
      ],
      [
        { v: 2, kind: 'invoke', tool: { id: 'conformance.echo' }, input: {}, ctx: { tenantId: 't' } },
        'malformed-message',
        '`ctx` needs string `tenantId` and `runId`',
      ],
      [{ v: 2, kind: 'check-invoke', check: {}, config: {}, trace: {} }, 'malformed-message', '`check.id` is required'],
      [
        { v: 2, kind: 'check-invoke', check: { id: 'x' }, config: [], trace: {} },
        'malformed-message',
        '`config` must be an object',
      ],
    ];
    for (const [message, code, text] of cases) {
      const reply = await invoke(service, message);
      expect({ status: reply.status, body: reply.body }).toEqual({
        status: 200,
        body: { v: 2, kind: 'error', code, message: text },
      });
    }
  });
}
