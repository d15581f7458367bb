import { describe, expect, it } from 'vitest';
import { envelope, jsonPost, makeApp } from './helpers.js';

describe('a guardrail check answering without a verdict', () => {
  it.each([
    ['no passed', {}],
    ['a string passed', { passed: 'yes' }],
    ['a result that is not an object', 'fine'],
  ])('is 502 pack-protocol-error for %s', async (_name, result) => {
    const { app } = makeApp({
      // An in-process binding: nothing parsed this reply before the API reads it.
      runCheck: async () => ({ kind: 'ok', value: { v: 2, kind: 'check-result', result } as never }),
    });
    const res = await app.request('/v1/guardrails/tone/evaluate', jsonPost({ trace: {} }));
    expect(res.status).toBe(502);
    const body = await envelope(res);
    expect(body.code).toBe('pack-protocol-error');
    expect(body.message).toBe(
      "The check's reply is malformed: A `check-result` message needs a boolean `result.passed`",
    );
  });
});
