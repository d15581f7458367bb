import { describe, expect, it } from 'vitest';
import { makeApp } from './helpers.js';

describe('health probes', () => {
  it('answers /healthz and its /health alias without a token', async () => {
    const { app } = makeApp();
    for (const path of ['/healthz', '/health']) {
      const res = await app.request(path);
      expect(res.status, path).toBe(200);
      expect(await res.json()).toEqual({ status: 'ok' });
      expect(res.headers.get('x-request-id')).toMatch(/^req-/);
    }
  });

  it('is ready without a probe, and reports every check of one', async () => {
    expect(await (await makeApp().app.request('/readyz')).json()).toEqual({ status: 'ready', checks: {} });
    const { app } = makeApp({ readiness: async () => ({ storage: { ok: true }, 'pack:a': { ok: true } }) });
    const res = await app.request('/readyz');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ready', checks: { storage: { ok: true }, 'pack:a': { ok: true } } });
  });

  it('is 503 not-ready (the error envelope) when any check fails or the probe throws, and /healthz stays 200', async () => {
    const failing = makeApp({
      readiness: async () => ({ storage: { ok: true }, 'pack:a': { ok: false, message: 'no child serving' } }),
    }).app;
    const res = await failing.request('/readyz');
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({
      error: { code: 'not-ready', details: { checks: { storage: { ok: true }, 'pack:a': { ok: false } } } },
    });
    expect((await failing.request('/healthz')).status).toBe(200);

    const throwing = makeApp({
      readiness: async () => {
        throw new Error('secret-ish detail /var/lib/x');
      },
    }).app;
    const thrown = await throwing.request('/readyz');
    expect(thrown.status).toBe(503);
    expect(await thrown.text()).not.toContain('secret-ish');
  });
});
