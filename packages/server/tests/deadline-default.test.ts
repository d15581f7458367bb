import { join } from 'node:path';
import { DEFAULT_CALL_TIMEOUT_MS } from '@kindgi/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cleanupTempDirs,
  makeTempDir,
  type RunningServer,
  startServer,
  stopAllServers,
  writeConfig,
} from './harness.js';
import { api } from './http.js';
import { startRemotePackService, stopRemotePackServices } from './pack-fixtures.js';
import { copySpyPack, indexPack } from './spy-pack.js';

const TOKEN = 'deadline-default-api-token-0123456789';
const PACK_TOKEN = 'deadline-default-pack-token-0123456789';
const ENV = { ACME_API_BASE: 'https://cases.acme.invalid' };
const DEFAULT = String(DEFAULT_CALL_TIMEOUT_MS);

/** A server serving the spy pack supervised (from its folder) or remote (a pack service of its own). */
async function serve(kind: 'supervised' | 'remote'): Promise<RunningServer> {
  const root = makeTempDir(`deadline-${kind}`);
  const packDir = copySpyPack(root);
  let pack: Record<string, unknown> = { dir: packDir, env: ENV };
  if (kind === 'remote') {
    const indexPath = await indexPack(packDir, makeTempDir('deadline-remote-index'));
    const service = await startRemotePackService({ indexPath, token: PACK_TOKEN, env: ENV, moduleRoot: packDir });
    pack = { url: service.url, token: PACK_TOKEN, pollMs: 100 };
  }
  const config = writeConfig(root, join(root, 'data'), {
    tokens: [{ token: TOKEN, tenantId: 'tenant-deadline' }],
    packs: [pack],
  });
  return startServer(config);
}

describe.each(['supervised', 'remote'] as const)('a call naming no deadline, to a %s pack', (kind) => {
  let server: RunningServer;

  beforeAll(async () => {
    server = await serve(kind);
  }, 120_000);

  afterAll(async () => {
    await stopAllServers();
    await stopRemotePackServices();
    cleanupTempDirs();
  });

  it(`reaches the pack with kindgi-timeout-ms ${DEFAULT} through REST invoke`, async () => {
    const reply = await api(server.url, TOKEN, 'POST', '/v1/tools/acme.deadline-spy/invoke', { input: {} });
    expect(reply).toMatchObject({ status: 200, body: { output: { timeoutMs: DEFAULT } } });
  }, 60_000);

  it('reaches it with the same deadline in a run', async () => {
    const started = await api(server.url, TOKEN, 'POST', '/v1/runs', {
      toolId: 'acme.deadline-spy',
      input: {},
      options: { wait: true },
    });
    expect(started).toMatchObject({ status: 201, body: { status: 'completed' } });
    const runId = (started.body as { runId: string }).runId;
    const run = await api(server.url, TOKEN, 'GET', `/v1/runs/${runId}`);
    expect(run).toMatchObject({ status: 200, body: { output: { timeoutMs: DEFAULT } } });
  }, 60_000);

  it('reaches it with the same deadline in a guardrail evaluation', async () => {
    const trace = { runId: `eval-${kind}`, tenantId: 'tenant-deadline', output: 'x', mode: 'runtime' };
    const reply = await api(server.url, TOKEN, 'POST', '/v1/guardrails/acme.deadline-spy/evaluate', { trace });
    expect(reply).toMatchObject({
      status: 200,
      body: { result: { passed: true, attributes: { timeoutMs: DEFAULT } } },
    });
  }, 60_000);

  it("keeps a caller's own deadline", async () => {
    const reply = await api(server.url, TOKEN, 'POST', '/v1/tools/acme.deadline-spy/invoke', {
      input: {},
      deadlineMs: 4321,
    });
    expect(reply).toMatchObject({ status: 200, body: { output: { timeoutMs: '4321' } } });
  }, 60_000);
});
