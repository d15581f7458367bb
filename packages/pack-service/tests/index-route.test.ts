import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestService, type TestService } from './pack-helpers.js';

// GET /v1/index is what a runtime reaching this service over the network (a kindgi-server remote pack)
// reads the tools' schemas from.
describe('GET /v1/index', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService();
  });
  afterAll(() => svc.close());

  it('answers the index the service serves, behind the pack token', async () => {
    const reply = await call(svc.url, '/v1/index');
    expect(reply.status).toBe(200);
    const info = await call(svc.url, '/v1/info');
    expect(reply.json).toMatchObject({
      v: 1,
      packId: info.json.packId,
      artifactVersion: info.json.artifactVersion,
    });
    const tools = reply.json.tools as { id: string; input: unknown }[];
    // Every tool the service runs is there (the index may list more: tools a runtime runs itself).
    const ids = new Set(tools.map((tool) => tool.id));
    expect((info.json.tools as { id: string }[]).filter((tool) => !ids.has(tool.id))).toEqual([]);
    expect(tools.every((tool) => typeof tool.input === 'object')).toBe(true);
    expect((await call(svc.url, '/v1/index', { headers: { 'kindgi-pack-token': 'wrong' } })).status).toBe(401);
    expect((await call(svc.url, '/v1/index', { method: 'POST', body: '{}' })).status).toBe(405);
  });
});
