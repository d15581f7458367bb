import { describe, expect, it } from 'vitest';
import { AUTH_A, AUTH_B, deferred, envelope, jsonPost, makeApp } from './helpers.js';

describe('GET /v1/tools', () => {
  it('lists tools with versions newest first, paginated by id', async () => {
    const { app } = makeApp();
    const res = await app.request('/v1/tools?limit=3', { headers: AUTH_A });
    expect(res.status).toBe(200);
    const page = (await res.json()) as { data: { id: string }[]; hasMore: boolean; nextCursor: string };
    expect(page.data.map((t) => t.id)).toEqual(['bad-input', 'bad-output', 'echo']);
    expect(page.hasMore).toBe(true);
    const next = await app.request(`/v1/tools?limit=100&cursor=${page.nextCursor}`, { headers: AUTH_A });
    const rest = (await next.json()) as { data: { id: string }[]; hasMore: boolean; nextCursor?: string };
    expect(rest.data.map((t) => t.id)).toEqual(['hold', 'throws', 'too-slow', 'unavailable']);
    expect(rest.hasMore).toBe(false);
    expect(rest.nextCursor).toBeUndefined();
  });

  it('a tool cursor does not work for tenant B or for guardrails', async () => {
    const { app } = makeApp();
    const page = (await (await app.request('/v1/tools?limit=1', { headers: AUTH_A })).json()) as { nextCursor: string };
    expect((await app.request(`/v1/tools?cursor=${page.nextCursor}`, { headers: AUTH_B })).status).toBe(400);
    expect((await app.request(`/v1/guardrails?cursor=${page.nextCursor}`, { headers: AUTH_A })).status).toBe(400);
  });

  it('GET /v1/tools/{toolId} answers schemas and versions; 404 tool-not-found otherwise', async () => {
    const { app } = makeApp();
    const res = await app.request('/v1/tools/echo', { headers: AUTH_A });
    expect(await res.json()).toEqual({
      id: 'echo',
      packId: 'pack-demo',
      versions: ['1.2.0', '1.0.0'],
      description: 'Returns its input',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
      outputSchema: { type: 'object' },
    });
    const missing = await app.request('/v1/tools/nope', { headers: AUTH_A });
    expect(missing.status).toBe(404);
    expect((await envelope(missing)).code).toBe('tool-not-found');
  });
});

describe('POST /v1/tools/{toolId}/invoke', () => {
  it('200 {output}', async () => {
    const { app } = makeApp();
    const res = await app.request('/v1/tools/echo/invoke', jsonPost({ input: { text: 'hi' }, version: '1.0.0' }));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ output: { text: 'hi' } });
  });

  it.each([
    ['bad-input', 422, 'input-validation-failed'],
    ['throws', 502, 'handler-throw'],
    ['bad-output', 502, 'output-validation-failed'],
    ['too-slow', 504, 'deadline-exceeded'],
    ['unavailable', 503, 'pack-unavailable'],
    ['nope', 404, 'tool-not-found'],
  ])('maps %s to %i %s', async (tool, status, code) => {
    const { app } = makeApp();
    const res = await app.request(`/v1/tools/${tool}/invoke`, jsonPost({ input: {} }));
    expect(res.status).toBe(status);
    expect((await envelope(res)).code).toBe(code);
  });

  it('keeps validation issues in details and hides handler stacks', async () => {
    const { app } = makeApp();
    const invalid = await envelope(await app.request('/v1/tools/bad-input/invoke', jsonPost({ input: {} })));
    expect(invalid.details?.issues).toEqual([{ instancePath: '/text', message: 'must be string', keyword: 'type' }]);
    const thrown = await envelope(await app.request('/v1/tools/throws/invoke', jsonPost({ input: {} })));
    expect(thrown.details?.cause).toEqual({ name: 'TypeError', message: 'boom' });
  });

  it('sends Retry-After for pack-unavailable', async () => {
    const { app } = makeApp();
    const res = await app.request('/v1/tools/unavailable/invoke', jsonPost({ input: {} }));
    expect(res.headers.get('retry-after')).toBe('3');
  });

  it('404 tool-version-not-found for a version the registry does not list', async () => {
    const { app } = makeApp();
    const res = await app.request('/v1/tools/echo/invoke', jsonPost({ input: {}, version: '9.9.9' }));
    expect(res.status).toBe(404);
    expect((await envelope(res)).code).toBe('tool-version-not-found');
  });

  it('without a registry, the pack decides: tool-not-in-pack is 404 tool-not-found', async () => {
    const { app } = makeApp({ toolRegistry: undefined });
    expect((await app.request('/v1/tools', { headers: AUTH_A })).status).toBe(404);
    const res = await app.request('/v1/tools/nope/invoke', jsonPost({ input: {} }));
    expect(res.status).toBe(404);
    expect((await envelope(res)).code).toBe('tool-not-found');
    expect((await app.request('/v1/tools/echo/invoke', jsonPost({ input: 1 }))).status).toBe(200);
  });

  it('passes the tenant, a call run id and the request id to the pack', async () => {
    const seen: unknown[] = [];
    const { app } = makeApp({
      runHandler: async (call) => {
        seen.push(call.ctx);
        return { kind: 'ok', value: { v: 2, kind: 'result', output: null } };
      },
    });
    await app.request('/v1/tools/echo/invoke', jsonPost({ input: {} }, { ...AUTH_A, 'x-request-id': 'rq-1' }));
    expect(seen).toEqual([{ tenantId: 'tenant-a', runId: expect.stringMatching(/^call-/), requestId: 'rq-1' }]);
  });

  it("carries the registry's pack for the newest version, and none for another (the router finds that)", async () => {
    const seen: unknown[] = [];
    const { app } = makeApp({
      runHandler: async (call) => {
        seen.push({ tool: call.tool, packId: call.packId });
        return { kind: 'ok', value: { v: 2, kind: 'result', output: null } };
      },
    });
    for (const version of [undefined, '1.2.0', '1.0.0']) {
      const res = await app.request('/v1/tools/echo/invoke', jsonPost({ input: {}, ...(version ? { version } : {}) }));
      expect(res.status).toBe(200);
    }
    const noRegistry = makeApp({ toolRegistry: undefined, runHandler: makeApp().runHandler }).app;
    expect((await noRegistry.request('/v1/tools/echo/invoke', jsonPost({ input: {} }))).status).toBe(200);
    expect(seen).toEqual([
      { tool: { id: 'echo' }, packId: 'pack-demo' },
      { tool: { id: 'echo', version: '1.2.0' }, packId: 'pack-demo' },
      { tool: { id: 'echo', version: '1.0.0' }, packId: undefined },
    ]);
  });

  it('a client that goes away aborts the call', async () => {
    const started = deferred();
    const aborted = deferred<unknown>();
    const { app } = makeApp(
      {},
      { hold: new Promise(() => undefined), started: () => started.resolve(), aborted: aborted.resolve },
    );
    const client = new AbortController();
    const pending = app.request('/v1/tools/hold/invoke', { ...jsonPost({ input: {} }), signal: client.signal });
    await started.promise;
    client.abort();
    await aborted.promise;
    await Promise.resolve(pending).catch(() => undefined);
  });
});
