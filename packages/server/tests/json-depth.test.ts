import { MAX_JSON_DEPTH } from '@kindgi/protocol';
import { describe, expect, it } from 'vitest';
import { useServedServer } from './served-server.js';

const TOKEN = 'kgi_test_depth_0123456789abcdef';

/** `depth` nested JSON arrays around one number. */
function nested(depth: number, leaf = '1'): string {
  return `${'['.repeat(depth)}${leaf}${']'.repeat(depth)}`;
}

async function post(url: string, path: string, text: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: text,
  });
  return { status: response.status, body: await response.json() };
}

// `wrap` is how many object levels a body puts around the arrays: the body's depth is `wrap + arrays`.
const SURFACES = [
  { path: '/v1/tools/acme.format-citation/invoke', wrap: 1, body: (inner: string) => `{"input":${inner}}` },
  {
    path: '/v1/guardrails/acme.citations-checked/evaluate',
    wrap: 2,
    body: (inner: string) => `{"trace":{"output":${inner}}}`,
  },
  { path: '/v1/runs', wrap: 1, body: (inner: string) => `{"toolId":"acme.format-citation","input":${inner}}` },
];

describe('JSON nested past MAX_JSON_DEPTH (dist/main.js)', () => {
  const served = useServedServer('depth', TOKEN, 'tenant-d');

  it.each(SURFACES)('$path: 5,000 levels is 400 bad-input, and the server keeps serving', async ({ path, body }) => {
    const reply = await post(served().url, path, body(nested(5_000)));
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ error: { code: 'bad-input', details: { maxDepth: MAX_JSON_DEPTH } } });
    const health = await fetch(`${served().url}/health`);
    expect(health.status).toBe(200);
  });

  it.each(SURFACES)('$path: one level past the limit is refused, the limit itself is not', async (surface) => {
    const atLimit = await post(served().url, surface.path, surface.body(nested(MAX_JSON_DEPTH - surface.wrap)));
    expect(atLimit.body).not.toMatchObject({ error: { code: 'bad-input' } });
    expect(atLimit.status).toBeLessThan(500);
    const pastLimit = await post(served().url, surface.path, surface.body(nested(MAX_JSON_DEPTH - surface.wrap + 1)));
    expect(pastLimit.status).toBe(400);
    expect(pastLimit.body).toMatchObject({ error: { code: 'bad-input' } });
  });
});
