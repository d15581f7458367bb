import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeCall, type FakePackService, startFakePackService } from './fake-pack-service.js';
import {
  cleanupTempDirs,
  makeTempDir,
  type RunningServer,
  startServer,
  stopAllServers,
  writeConfig,
} from './harness.js';
import { api } from './http.js';

// A remote pack service is not ours: its replies are held to what a local pack's own service guarantees
// (the protocol's depth limit, a `result` with an `output`, the output schema of the index it published).
const TOKEN = 'remote-replies-api-token-0123';
const PACK_TOKEN = 'remote-replies-pack-token-0123';
const COUNT_SCHEMA = {
  type: 'object',
  required: ['count'],
  properties: { count: { type: 'integer' } },
  additionalProperties: false,
};
// As text: JSON.stringify itself runs out of stack on a value this deep.
const DEEP_RESULT = `{"v":2,"kind":"result","output":${'['.repeat(5_000)}${']'.repeat(5_000)}}`;

const REPLIES: Record<string, unknown> = {
  'odd.deep': DEEP_RESULT,
  'odd.no-output': { v: 2, kind: 'result' },
  'odd.wrong-shape': { v: 2, kind: 'result', output: { count: 'three', extra: true } },
  'odd.fine': { v: 2, kind: 'result', output: { count: 3 } },
};

describe("a remote pack's replies are checked like a local pack's (dist/main.js)", () => {
  let odd: FakePackService;
  let server: RunningServer;

  beforeAll(async () => {
    const tools = Object.keys(REPLIES).map((id) => ({ id, output: id === 'odd.deep' ? {} : COUNT_SCHEMA }));
    odd = await startFakePackService(
      { packId: 'odd', artifactVersion: 'odd-1', tools },
      (call: FakeCall) => REPLIES[call.toolId ?? ''],
      PACK_TOKEN,
    );
    const root = makeTempDir('remote-replies');
    const config = writeConfig(root, join(root, 'data'), {
      tokens: [{ token: TOKEN, tenantId: 'tenant-replies' }],
      packs: [{ url: odd.url, token: PACK_TOKEN, pollMs: 100 }],
    });
    server = await startServer(config);
  }, 120_000);

  afterAll(async () => {
    await stopAllServers();
    await odd.close();
    cleanupTempDirs();
  });

  const invoke = (toolId: string) => api(server.url, TOKEN, 'POST', `/v1/tools/${toolId}/invoke`, { input: {} });
  const run = (toolId: string) =>
    api(server.url, TOKEN, 'POST', '/v1/runs', { toolId, input: {}, options: { wait: true } });

  it('answers a reply nested 5,000 deep 502 pack-protocol-error, and fails a run with it at once', async () => {
    const reply = await invoke('odd.deep');
    expect(reply).toMatchObject({
      status: 502,
      body: { error: { code: 'pack-protocol-error', details: { packCode: 'malformed-message', toolId: 'odd.deep' } } },
    });
    expect(JSON.stringify(reply.body)).toContain('deeper than 256 levels');
    const started = await run('odd.deep');
    expect(started).toMatchObject({ status: 201, body: { status: 'failed', error: { code: 'pack-protocol-error' } } });
    const runId = (started.body as { runId: string }).runId;
    const stored = await api(server.url, TOKEN, 'GET', `/v1/runs/${runId}`);
    expect(stored.body).toMatchObject({ status: 'failed', error: { code: 'pack-protocol-error' } });
  }, 60_000);

  it('answers a result without output 502 pack-protocol-error, never 200 {}', async () => {
    const reply = await invoke('odd.no-output');
    expect(reply).toMatchObject({
      status: 502,
      body: { error: { code: 'pack-protocol-error', details: { packCode: 'malformed-message' } } },
    });
    expect(JSON.stringify(reply.body)).toContain('needs an `output`');
    expect((await run('odd.no-output')).body).toMatchObject({
      status: 'failed',
      error: { code: 'pack-protocol-error' },
    });
  }, 60_000);

  it("answers an output outside the tool's output schema as a local pack does: 502 output-validation-failed", async () => {
    const reply = await invoke('odd.wrong-shape');
    expect(reply).toMatchObject({
      status: 502,
      body: {
        error: {
          code: 'output-validation-failed',
          message: 'Tool "odd.wrong-shape" handler produced output that failed validation',
          details: { packCode: 'output-validation-failed', toolId: 'odd.wrong-shape' },
        },
      },
    });
    const issues = (reply.body as { error: { details: { issues: { instancePath: string }[] } } }).error.details.issues;
    expect(issues.map((issue) => issue.instancePath)).toContain('/count');
    expect((await run('odd.wrong-shape')).body).toMatchObject({
      status: 'failed',
      error: { code: 'output-validation-failed' },
    });
  }, 60_000);

  it('passes an output that matches its schema', async () => {
    expect(await invoke('odd.fine')).toMatchObject({ status: 200, body: { output: { count: 3 } } });
  });
});
