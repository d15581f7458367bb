import { expect, it } from 'vitest';
import { AUTH_A, envelope, makeApp } from './helpers.js';

it('answers 405 method-not-allowed with Allow for a served path asked with another method', async () => {
  const { app } = makeApp();
  const cases = [
    ['PATCH', '/healthz', 'GET, HEAD'],
    ['DELETE', '/readyz', 'GET, HEAD'],
    ['PUT', '/v1/artifacts', 'GET, HEAD, POST'],
    ['POST', '/v1/artifacts/blob-1', 'DELETE, GET, HEAD'],
    ['GET', '/v1/tools/echo/invoke', 'POST'],
  ] as const;
  for (const [method, path, allow] of cases) {
    const res = await app.request(path, { method, headers: AUTH_A });
    expect(res.status, `${method} ${path}`).toBe(405);
    expect(res.headers.get('allow')).toBe(allow);
    expect((await envelope(res)).code).toBe('method-not-allowed');
  }
});

it('keeps 404 route-not-found for a path no route serves', async () => {
  const { app } = makeApp();
  const res = await app.request('/v1/nothing-here', { method: 'PATCH', headers: AUTH_A });
  expect(res.status).toBe(404);
  expect((await envelope(res)).code).toBe('route-not-found');
});
