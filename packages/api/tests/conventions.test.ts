import { describe, expect, it } from 'vitest';
import { REST_ERROR_STATUS, statusFor } from '../src/index.js';
import { AUTH_A, envelope, jsonPost, makeApp } from './helpers.js';

describe('request ids', () => {
  it('generates req-<uuid> and echoes it', async () => {
    const { app } = makeApp();
    const res = await app.request('/health');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
    expect(res.headers.get('x-request-id')).toMatch(/^req-[0-9a-f-]{36}$/);
  });

  it('honours a client X-Request-Id on success and in errors', async () => {
    const { app } = makeApp();
    const res = await app.request('/v1/tools', { headers: { 'x-request-id': 'client-42' } });
    expect(res.status).toBe(401);
    expect(res.headers.get('x-request-id')).toBe('client-42');
    expect((await envelope(res)).requestId).toBe('client-42');
  });

  it('replaces an unusable X-Request-Id', async () => {
    const { app } = makeApp();
    const res = await app.request('/health', { headers: { 'x-request-id': 'has spaces in it' } });
    expect(res.headers.get('x-request-id')).toMatch(/^req-/);
  });
});

describe('auth', () => {
  it('401 auth-missing without a token, with a Bearer challenge', async () => {
    const { app } = makeApp();
    const res = await app.request('/v1/tools');
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect((await envelope(res)).code).toBe('auth-missing');
  });

  it('401 auth-missing for another scheme', async () => {
    const { app } = makeApp();
    const res = await app.request('/v1/tools', { headers: { authorization: 'Basic dXNlcjpwYXNz' } });
    expect((await envelope(res)).code).toBe('auth-missing');
  });

  it('401 auth-invalid for an unknown token', async () => {
    const { app } = makeApp();
    const res = await app.request('/v1/tools', { headers: { authorization: 'Bearer nope' } });
    expect(res.status).toBe(401);
    expect((await envelope(res)).code).toBe('auth-invalid');
  });

  it('503 when the token resolver fails, never a 500', async () => {
    const { app } = makeApp({
      resolveToken: async () => {
        throw new Error('db down');
      },
    });
    const res = await app.request('/v1/tools', { headers: AUTH_A });
    expect(res.status).toBe(503);
    expect((await envelope(res)).code).toBe('authz-backend-unavailable');
  });

  it('keeps /health and /v1/openapi.json public', async () => {
    const { app } = makeApp();
    expect((await app.request('/health')).status).toBe(200);
    expect((await app.request('/v1/openapi.json')).status).toBe(200);
  });
});

describe('bodies', () => {
  it('400 bad-input for malformed JSON', async () => {
    const { app } = makeApp();
    const res = await app.request('/v1/tools/echo/invoke', {
      method: 'POST',
      headers: { ...AUTH_A, 'content-type': 'application/json' },
      body: '{"input": ',
    });
    expect(res.status).toBe(400);
    expect((await envelope(res)).code).toBe('bad-input');
  });

  it('400 bad-input for a wrong content type', async () => {
    const { app } = makeApp();
    const res = await app.request('/v1/tools/echo/invoke', {
      method: 'POST',
      headers: { ...AUTH_A, 'content-type': 'text/plain' },
      body: '{"input": {}}',
    });
    expect(res.status).toBe(400);
    const error = await envelope(res);
    expect(error.code).toBe('bad-input');
    expect(error.message).toContain('application/json');
  });

  it('400 unknown-field names the unknown fields', async () => {
    const { app } = makeApp();
    const res = await app.request('/v1/tools/echo/invoke', jsonPost({ input: {}, inptu: 1 }));
    expect(res.status).toBe(400);
    const error = await envelope(res);
    expect(error.code).toBe('unknown-field');
    expect(error.details).toMatchObject({ fields: ['/inptu'] });
  });

  it('400 unknown-field inside nested option objects', async () => {
    const { app } = makeApp();
    const res = await app.request('/v1/runs', jsonPost({ toolId: 'echo', input: {}, options: { wiat: true } }));
    expect((await envelope(res)).code).toBe('unknown-field');
  });

  it('400 validation-failed with JSON Pointer issues', async () => {
    const { app } = makeApp();
    const res = await app.request('/v1/tools/echo/invoke', jsonPost({ input: {}, deadlineMs: -5 }));
    expect(res.status).toBe(400);
    const error = await envelope(res);
    expect(error.code).toBe('validation-failed');
    expect(error.message).toMatch(/^Invalid body at \/deadlineMs/);
    expect(error.details).toMatchObject({ target: 'body' });
    expect(error.details?.issues).toEqual([expect.objectContaining({ instancePath: '/deadlineMs' })]);
  });

  it('400 validation-failed when a required field is missing', async () => {
    const { app } = makeApp();
    const res = await app.request('/v1/tools/echo/invoke', jsonPost({ version: '1.0.0' }));
    const error = await envelope(res);
    expect(error.code).toBe('validation-failed');
    expect(error.details?.issues).toEqual([expect.objectContaining({ instancePath: '/input' })]);
  });

  it('413 body-too-large over the JSON limit', async () => {
    const { app } = makeApp({ jsonBodyMaxBytes: 1024 });
    const res = await app.request('/v1/tools/echo/invoke', jsonPost({ input: { text: 'x'.repeat(2000) } }));
    expect(res.status).toBe(413);
    const error = await envelope(res);
    expect(error.code).toBe('body-too-large');
    expect(error.details).toEqual({ maxBytes: 1024 });
  });

  it('413 body-too-large for a chunked body without Content-Length', async () => {
    const { app } = makeApp({ jsonBodyMaxBytes: 1024 });
    const text = JSON.stringify({ input: { text: 'x'.repeat(4000) } });
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(text));
        controller.close();
      },
    });
    const res = await app.request('/v1/tools/echo/invoke', {
      method: 'POST',
      headers: { ...AUTH_A, 'content-type': 'application/json' },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect((await envelope(res)).code).toBe('body-too-large');
  });
});

describe('routing and the code table', () => {
  it('404 route-not-found with the envelope for an unknown route', async () => {
    const { app } = makeApp();
    const res = await app.request('/v1/nothing-here', { headers: AUTH_A });
    expect(res.status).toBe(404);
    const error = await envelope(res);
    expect(error.code).toBe('route-not-found');
    expect(error.message).toContain('bindings');
  });

  it('404 route-not-found with a request id outside /v1 too', async () => {
    const { app } = makeApp();
    const res = await app.request('/elsewhere');
    expect(res.status).toBe(404);
    const error = await envelope(res);
    expect(error.requestId).toMatch(/^req-/);
    expect(res.headers.get('x-request-id')).toBe(error.requestId);
  });

  it('maps every code through one table; unknown codes are 500', () => {
    expect(statusFor('idempotency-key-in-flight')).toBe(409);
    expect(statusFor('artifact-too-large')).toBe(413);
    expect(statusFor('no-such-code')).toBe(500);
    for (const [code, status] of Object.entries(REST_ERROR_STATUS)) {
      expect(code).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(status).toBeGreaterThanOrEqual(400);
    }
  });

  it('answers an unexpected throw with 500 internal-server-error and logs it', async () => {
    const logged: string[] = [];
    const { app } = makeApp({
      logger: { warn: () => undefined, error: (message) => void logged.push(message) },
      runHandler: async () => {
        throw new Error('binding bug');
      },
    });
    const res = await app.request('/v1/tools/echo/invoke', jsonPost({ input: {} }));
    expect(res.status).toBe(500);
    const error = await envelope(res);
    expect(error.code).toBe('internal-server-error');
    expect(error.message).not.toContain('binding bug');
    expect(logged).toEqual(['unhandled error']);
  });
});

describe('trailing slashes', () => {
  it('301 to the path without the slash', async () => {
    const { app } = makeApp();
    const res = await app.request('/v1/tools/', { headers: AUTH_A });
    expect(res.status).toBe(301);
    expect(new URL(res.headers.get('location') ?? '').pathname).toBe('/v1/tools');
  });
});
