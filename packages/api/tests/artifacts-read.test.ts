import { describe, expect, it } from 'vitest';
import { AUTH_A, AUTH_B, envelope, makeApp } from './helpers.js';

async function seed(app: ReturnType<typeof makeApp>['app'], text: string, fields: Record<string, string> = {}) {
  const data = new FormData();
  for (const [name, value] of Object.entries(fields)) data.append(name, value);
  data.append('file', new Blob([text], { type: 'text/plain' }), `${text}.txt`);
  const res = await app.request('/v1/artifacts', { method: 'POST', headers: AUTH_A, body: data });
  expect(res.status).toBe(201);
  return (await res.json()) as { blobId: string; hash: string; size: number };
}

describe('GET /v1/artifacts/{blobId}', () => {
  it('streams the bytes with Content-Length, hash and name headers', async () => {
    const { app } = makeApp();
    const meta = await seed(app, 'hello world', { name: 'a b/ü.txt' });
    const res = await app.request(`/v1/artifacts/${meta.blobId}`, { headers: AUTH_A });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe('11');
    expect(res.headers.get('content-type')).toBe('text/plain');
    expect(res.headers.get('x-kindgi-blob-hash')).toBe(meta.hash);
    expect(res.headers.get('x-kindgi-blob-name')).toBe(encodeURIComponent('a b/ü.txt'));
    expect(res.headers.get('x-request-id')).toMatch(/^req-/);
    expect(await res.text()).toBe('hello world');
  });

  it.each([
    ['bytes=0-4', 'hello', 'bytes 0-4/11'],
    ['bytes=6-', 'world', 'bytes 6-10/11'],
    ['bytes=-3', 'rld', 'bytes 8-10/11'],
    ['bytes=6-999', 'world', 'bytes 6-10/11'],
  ])('206 for Range %s', async (range, body, contentRange) => {
    const { app } = makeApp();
    const meta = await seed(app, 'hello world');
    const res = await app.request(`/v1/artifacts/${meta.blobId}`, { headers: { ...AUTH_A, range } });
    expect(res.status).toBe(206);
    expect(res.headers.get('content-range')).toBe(contentRange);
    expect(res.headers.get('content-length')).toBe(String(body.length));
    expect(await res.text()).toBe(body);
  });

  it.each(['bytes=20-30', 'bytes=0-1,3-4', 'bytes=5-2'])('416 range-not-satisfiable for %s', async (range) => {
    const { app } = makeApp();
    const meta = await seed(app, 'hello world');
    const res = await app.request(`/v1/artifacts/${meta.blobId}`, { headers: { ...AUTH_A, range } });
    expect(res.status).toBe(416);
    expect(res.headers.get('content-range')).toBe('bytes */11');
    expect((await envelope(res)).code).toBe('range-not-satisfiable');
  });

  it('ignores a Range that is not a byte range', async () => {
    const { app } = makeApp();
    const meta = await seed(app, 'hello world');
    const res = await app.request(`/v1/artifacts/${meta.blobId}`, { headers: { ...AUTH_A, range: 'items=0-1' } });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('hello world');
  });

  it('404 blob-not-found for an unknown id and for another tenant', async () => {
    const { app } = makeApp();
    const meta = await seed(app, 'private');
    for (const [path, headers] of [
      ['/v1/artifacts/nope', AUTH_A],
      [`/v1/artifacts/${meta.blobId}`, AUTH_B],
    ] as const) {
      const res = await app.request(path, { headers });
      expect(res.status).toBe(404);
      expect((await envelope(res)).code).toBe('blob-not-found');
    }
  });
});

describe('HEAD and DELETE /v1/artifacts/{blobId}', () => {
  it('HEAD answers the headers without a body; 404 empty for another tenant', async () => {
    const { app } = makeApp();
    const meta = await seed(app, 'head me');
    const res = await app.request(`/v1/artifacts/${meta.blobId}`, { method: 'HEAD', headers: AUTH_A });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe('7');
    expect(res.headers.get('x-kindgi-blob-hash')).toBe(meta.hash);
    expect(await res.text()).toBe('');
    const foreign = await app.request(`/v1/artifacts/${meta.blobId}`, { method: 'HEAD', headers: AUTH_B });
    expect(foreign.status).toBe(404);
    expect(await foreign.text()).toBe('');
  });

  it('DELETE answers {blobId, deleted}; then the artifact reads as 404', async () => {
    const { app } = makeApp();
    const meta = await seed(app, 'bye');
    const foreign = await app.request(`/v1/artifacts/${meta.blobId}`, { method: 'DELETE', headers: AUTH_B });
    expect(foreign.status).toBe(404);
    const res = await app.request(`/v1/artifacts/${meta.blobId}`, { method: 'DELETE', headers: AUTH_A });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ blobId: meta.blobId, deleted: true });
    expect((await app.request(`/v1/artifacts/${meta.blobId}`, { headers: AUTH_A })).status).toBe(404);
    expect((await app.request(`/v1/artifacts/${meta.blobId}`, { method: 'DELETE', headers: AUTH_A })).status).toBe(404);
  });
});

describe('GET /v1/artifacts', () => {
  it('filters by contentType, ownerRunId and tags (AND), per tenant', async () => {
    const { app } = makeApp();
    const run = await app.request('/v1/runs', {
      method: 'POST',
      headers: { ...AUTH_A, 'content-type': 'application/json' },
      body: JSON.stringify({ toolId: 'echo', input: {}, options: { wait: true } }),
    });
    const { runId } = (await run.json()) as { runId: string };
    const owned = await seed(app, 'owned', { ownerRunId: runId, tags: '{"team":"x","env":"prod"}' });
    await seed(app, 'other', { tags: '{"team":"x","env":"dev"}' });
    const byRun = await app.request(`/v1/artifacts?ownerRunId=${runId}`, { headers: AUTH_A });
    expect(((await byRun.json()) as { data: { blobId: string }[] }).data.map((a) => a.blobId)).toEqual([owned.blobId]);
    const byTags = await app.request('/v1/artifacts?tag.team=x&tag.env=prod', { headers: AUTH_A });
    expect(((await byTags.json()) as { data: { blobId: string }[] }).data.map((a) => a.blobId)).toEqual([owned.blobId]);
    const inProject = await seed(app, 'project', { projectId: 'proj-1' });
    const byProject = await app.request('/v1/artifacts?projectId=proj-1', { headers: AUTH_A });
    expect(((await byProject.json()) as { data: { blobId: string }[] }).data.map((a) => a.blobId)).toEqual([
      inProject.blobId,
    ]);
    const byType = await app.request('/v1/artifacts?contentType=text/plain', { headers: AUTH_A });
    expect(((await byType.json()) as { data: unknown[] }).data).toHaveLength(3);
    const tenantB = await app.request('/v1/artifacts', { headers: AUTH_B });
    expect(await tenantB.json()).toEqual({ data: [], hasMore: false });
  });

  it('pages with a sealed cursor until hasMore is false', async () => {
    const { app } = makeApp();
    for (const text of ['a', 'b', 'c', 'd', 'e']) await seed(app, text);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const query = cursor === undefined ? 'limit=2' : `limit=2&cursor=${encodeURIComponent(cursor)}`;
      const res = await app.request(`/v1/artifacts?${query}`, { headers: AUTH_A });
      const page = (await res.json()) as { data: { blobId: string }[]; hasMore: boolean; nextCursor?: string };
      seen.push(...page.data.map((a) => a.blobId));
      expect(page.hasMore).toBe(page.nextCursor !== undefined);
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor !== undefined);
    expect(pages).toBe(3);
    expect(new Set(seen).size).toBe(5);
  });

  it('400 for a forged cursor, another tenant’s cursor, or one from other filters', async () => {
    const { app } = makeApp();
    for (const text of ['a', 'b', 'c']) await seed(app, text);
    const first = (await (await app.request('/v1/artifacts?limit=1', { headers: AUTH_A })).json()) as {
      nextCursor: string;
    };
    const [payload] = first.nextCursor.split('.');
    const forged = `${Buffer.from('forged').toString('base64url')}.${first.nextCursor.split('.')[1]}`;
    for (const [query, headers] of [
      [`cursor=${forged}`, AUTH_A],
      [`cursor=${payload}`, AUTH_A],
      ['cursor=garbage', AUTH_A],
      [`cursor=${first.nextCursor}`, AUTH_B],
      [`cursor=${first.nextCursor}&contentType=text/csv`, AUTH_A],
    ] as const) {
      const res = await app.request(`/v1/artifacts?${query}`, { headers });
      expect(res.status).toBe(400);
      const error = await envelope(res);
      expect(error.code).toBe('bad-input');
      expect(error.details).toEqual({ param: 'cursor' });
    }
  });

  it.each(['limit=0', 'limit=101', 'limit=abc', 'limit=2.5'])('400 validation-failed for %s', async (query) => {
    const { app } = makeApp();
    const res = await app.request(`/v1/artifacts?${query}`, { headers: AUTH_A });
    expect(res.status).toBe(400);
    expect((await envelope(res)).code).toBe('validation-failed');
  });

  it('400 bad-input for an empty tag key', async () => {
    const { app } = makeApp();
    const res = await app.request('/v1/artifacts?tag.=x', { headers: AUTH_A });
    expect(res.status).toBe(400);
    expect((await envelope(res)).code).toBe('bad-input');
  });
});
