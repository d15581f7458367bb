import { describe, expect, it } from 'vitest';
import { createInMemoryIdempotencyStore } from '../src/index.js';
import { AUTH_A, AUTH_B, deferred, envelope, jsonPost, makeApp } from './helpers.js';

const withKey = (key: string, auth = AUTH_A) => ({ ...auth, 'idempotency-key': key });

describe('Idempotency-Key', () => {
  it('replays the stored answer with X-Idempotent-Replay and does not run twice', async () => {
    const { app, runStore } = makeApp();
    const first = await app.request(
      '/v1/runs',
      jsonPost({ toolId: 'echo', input: { n: 1 }, options: { wait: true } }, withKey('k1')),
    );
    expect(first.status).toBe(201);
    expect(first.headers.get('x-idempotent-replay')).toBeNull();
    const firstBody = await first.json();
    const again = await app.request(
      '/v1/runs',
      jsonPost({ toolId: 'echo', input: { n: 1 }, options: { wait: true } }, withKey('k1')),
    );
    expect(again.status).toBe(201);
    expect(again.headers.get('x-idempotent-replay')).toBe('true');
    expect(again.headers.get('content-type')).toContain('application/json');
    expect(await again.json()).toEqual(firstBody);
    const listed = await runStore.list('tenant-a', {}, undefined, 10);
    expect(listed.kind === 'ok' && listed.value.data.length).toBe(1);
  });

  it('409 idempotency-key-body-mismatch for the same key with another body', async () => {
    const { app } = makeApp();
    await app.request('/v1/tools/echo/invoke', jsonPost({ input: { n: 1 } }, withKey('k2')));
    const res = await app.request('/v1/tools/echo/invoke', jsonPost({ input: { n: 2 } }, withKey('k2')));
    expect(res.status).toBe(409);
    expect((await envelope(res)).code).toBe('idempotency-key-body-mismatch');
  });

  it('409 idempotency-key-in-flight with Retry-After while the first request runs', async () => {
    const hold = deferred();
    const started = deferred();
    const { app } = makeApp({}, { hold: hold.promise, started: () => started.resolve() });
    const first = app.request('/v1/tools/hold/invoke', jsonPost({ input: { started: true } }, withKey('k3')));
    // The in-flight window is real: repeat only once the first call is running in the tool.
    await started.promise;
    const second = app.request('/v1/tools/hold/invoke', jsonPost({ input: { started: true } }, withKey('k3')));
    const res = await second;
    expect(res.status).toBe(409);
    expect(res.headers.get('retry-after')).toBe('5');
    expect((await envelope(res)).code).toBe('idempotency-key-in-flight');
    hold.resolve();
    expect((await first).status).toBe(200);
    const replay = await app.request('/v1/tools/hold/invoke', jsonPost({ input: { started: true } }, withKey('k3')));
    expect(replay.headers.get('x-idempotent-replay')).toBe('true');
  });

  it('does not store error answers: a retry runs again', async () => {
    const { app } = makeApp();
    const first = await app.request('/v1/tools/throws/invoke', jsonPost({ input: {} }, withKey('k4')));
    expect(first.status).toBe(502);
    const second = await app.request('/v1/tools/throws/invoke', jsonPost({ input: {} }, withKey('k4')));
    expect(second.status).toBe(502);
    expect(second.headers.get('x-idempotent-replay')).toBeNull();
  });

  it('keys by tenant: another tenant reusing the key is a separate request', async () => {
    const { app } = makeApp();
    await app.request('/v1/tools/echo/invoke', jsonPost({ input: { n: 1 } }, withKey('shared')));
    const res = await app.request('/v1/tools/echo/invoke', jsonPost({ input: { n: 9 } }, withKey('shared', AUTH_B)));
    expect(res.status).toBe(200);
    expect(res.headers.get('x-idempotent-replay')).toBeNull();
    expect(await res.json()).toEqual({ output: { n: 9 } });
  });

  it('works with a store without holds (get/set only)', async () => {
    const full = createInMemoryIdempotencyStore();
    const { app } = makeApp({
      idempotencyStore: { get: (key) => full.get(key), set: (key, entry) => full.set(key, entry) },
    });
    const first = await app.request('/v1/tools/echo/invoke', jsonPost({ input: { n: 1 } }, withKey('plain')));
    const again = await app.request('/v1/tools/echo/invoke', jsonPost({ input: { n: 1 } }, withKey('plain')));
    expect(again.headers.get('x-idempotent-replay')).toBe('true');
    expect(await again.json()).toEqual(await first.json());
    const other = await app.request('/v1/tools/echo/invoke', jsonPost({ input: { n: 2 } }, withKey('plain')));
    expect((await envelope(other)).code).toBe('idempotency-key-body-mismatch');
  });

  it('400 bad-input for an unusable key', async () => {
    const { app } = makeApp();
    const res = await app.request('/v1/tools/echo/invoke', jsonPost({ input: {} }, withKey('x'.repeat(300))));
    expect(res.status).toBe(400);
    expect((await envelope(res)).code).toBe('bad-input');
  });
});

describe('createInMemoryIdempotencyStore', () => {
  it('keeps the first answer, expires entries and holds lazily', async () => {
    let now = 1000;
    const store = createInMemoryIdempotencyStore({ now: () => now });
    const entry = { bodyHash: 'h', status: 201, contentType: 'application/json', bodyText: '{}', expiresAt: 2000 };
    await store.set('k', entry);
    await store.set('k', { ...entry, bodyText: '{"second":true}' });
    expect((await store.get('k'))?.bodyText).toBe('{}');
    expect(await store.holds?.hold('k', { holder: 'x', bodyHash: 'h', expiresAt: 5000 })).toEqual({
      kind: 'stored',
      entry,
    });
    now = 2000;
    expect(await store.get('k')).toBeNull();
    expect(await store.holds?.hold('k', { holder: 'a', bodyHash: 'h1', expiresAt: 3000 })).toEqual({ kind: 'held' });
    expect(await store.holds?.hold('k', { holder: 'b', bodyHash: 'h2', expiresAt: 3000 })).toEqual({
      kind: 'in-flight',
      bodyHash: 'h1',
    });
    await store.holds?.renew('k', 'a', 4000);
    now = 3500;
    expect((await store.holds?.hold('k', { holder: 'b', bodyHash: 'h2', expiresAt: 5000 }))?.kind).toBe('in-flight');
    await store.holds?.release('k', 'b');
    expect((await store.holds?.hold('k', { holder: 'b', bodyHash: 'h2', expiresAt: 5000 }))?.kind).toBe('in-flight');
    await store.holds?.release('k', 'a');
    expect(await store.holds?.hold('k', { holder: 'b', bodyHash: 'h2', expiresAt: 5000 })).toEqual({ kind: 'held' });
  });
});
