import { describe, expect, it } from 'vitest';
import { AUTH_A, envelope, jsonPost, makeApp } from './helpers.js';

describe('/v1/guardrails', () => {
  it('lists guardrails with their action, severity and config', async () => {
    const { app } = makeApp();
    const res = await app.request('/v1/guardrails', { headers: AUTH_A });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      data: [
        {
          id: 'no-secrets',
          packId: 'pack-demo',
          checkId: 'no-secrets',
          kind: 'pii',
          action: { 'on-violation': 'halt' },
          severity: 'critical',
        },
        {
          id: 'tone',
          packId: 'pack-demo',
          checkId: 'tone-check',
          kind: 'style',
          action: { 'on-violation': 'log-only' },
          severity: 'warn',
          config: { strict: false },
        },
      ],
      hasMore: false,
    });
  });

  it('evaluates a trace through the check, with configured values overridable', async () => {
    const { app } = makeApp();
    const res = await app.request(
      '/v1/guardrails/tone/evaluate',
      jsonPost({ trace: { output: 'stop!!' }, config: { strict: true } }),
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      guardrailId: 'tone',
      checkId: 'tone-check',
      action: 'log-only',
      severity: 'warn',
      result: { passed: false, reason: 'shouting (strict=true)' },
    });
    const passing = await app.request('/v1/guardrails/no-secrets/evaluate', jsonPost({ trace: { output: 'fine' } }));
    expect(((await passing.json()) as { result: unknown }).result).toEqual({ passed: true });
  });

  it('404 guardrail-not-found; 400 for a trace that is not an object or unknown fields', async () => {
    const { app } = makeApp();
    const missing = await app.request('/v1/guardrails/nope/evaluate', jsonPost({ trace: {} }));
    expect(missing.status).toBe(404);
    expect((await envelope(missing)).code).toBe('guardrail-not-found');
    const notObject = await app.request('/v1/guardrails/tone/evaluate', jsonPost({ trace: 'text' }));
    expect((await envelope(notObject)).code).toBe('validation-failed');
    const unknown = await app.request('/v1/guardrails/tone/evaluate', jsonPost({ trace: {}, mode: 'ci' }));
    expect((await envelope(unknown)).code).toBe('unknown-field');
  });

  it("sends the check with its guardrail's pack (a check id alone may be in several)", async () => {
    const seen: unknown[] = [];
    const { app } = makeApp({
      runCheck: async (call) => {
        seen.push({ check: call.check, packId: call.packId });
        return { kind: 'ok', value: { v: 2, kind: 'check-result', result: { passed: true } } };
      },
    });
    expect((await app.request('/v1/guardrails/tone/evaluate', jsonPost({ trace: {} }))).status).toBe(200);
    expect(seen).toEqual([{ check: { id: 'tone-check' }, packId: 'pack-demo' }]);
  });

  it('a check that throws is 502 handler-throw', async () => {
    const { app } = makeApp({
      runCheck: async () => ({ kind: 'ok', value: { v: 2, kind: 'error', code: 'handler-throw', message: 'x' } }),
    });
    const res = await app.request('/v1/guardrails/tone/evaluate', jsonPost({ trace: {} }));
    expect(res.status).toBe(502);
    expect((await envelope(res)).code).toBe('handler-throw');
  });

  it('is not mounted without a registry; evaluate is not mounted without runCheck', async () => {
    const noRegistry = makeApp({ toolRegistry: undefined }).app;
    expect((await noRegistry.request('/v1/guardrails', { headers: AUTH_A })).status).toBe(404);
    const noCheck = makeApp({ runCheck: undefined }).app;
    expect((await noCheck.request('/v1/guardrails', { headers: AUTH_A })).status).toBe(200);
    const res = await noCheck.request('/v1/guardrails/tone/evaluate', jsonPost({ trace: {} }));
    expect(res.status).toBe(404);
    expect((await envelope(res)).code).toBe('route-not-found');
  });
});
