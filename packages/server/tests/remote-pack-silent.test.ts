import { readFileSync } from 'node:fs';
import { join } from 'node:path';
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
import { type RemotePackService, startRemotePackService, stopRemotePackServices } from './pack-fixtures.js';
import { copySpyPack, indexPack } from './spy-pack.js';

const TOKEN = 'remote-silent-api-token-0123456789';
const PACK_TOKEN = 'remote-silent-pack-token-0123456789';
const ENV = { ACME_API_BASE: 'https://cases.acme.invalid' };
// Past the call's deadline (500 ms) and the grace (5 s) with room to spare: the server has given up on the
// call long before the service could answer anything, its own deadline-exceeded included.
const STALL = { deadlineMs: 500, blockMs: 9_000 };

function executions(marker: string): number {
  try {
    return readFileSync(marker, 'utf8').split('\n').filter(Boolean).length;
  } catch {
    return 0;
  }
}

describe('a remote pack that accepts a call and stays silent past its deadline and grace', () => {
  let root: string;
  let service: RemotePackService;
  let server: RunningServer;

  beforeAll(async () => {
    root = makeTempDir('remote-silent');
    const packDir = copySpyPack(root);
    const indexPath = await indexPack(packDir, makeTempDir('remote-silent-index'));
    service = await startRemotePackService({ indexPath, token: PACK_TOKEN, env: ENV, moduleRoot: packDir });
    const config = writeConfig(root, join(root, 'data'), {
      tokens: [{ token: TOKEN, tenantId: 'tenant-silent' }],
      packs: [{ url: service.url, token: PACK_TOKEN, pollMs: 100, retryMs: 60_000 }],
    });
    server = await startServer(config);
  }, 120_000);

  afterAll(async () => {
    await stopAllServers();
    await stopRemotePackServices();
    cleanupTempDirs();
  });

  it('answers REST invoke 504 deadline-exceeded: the call may have run, so it is not pack-unavailable', async () => {
    const marker = join(root, 'invoke.marker');
    const reply = await api(server.url, TOKEN, 'POST', '/v1/tools/acme.stall/invoke', {
      input: { marker, blockMs: STALL.blockMs },
      deadlineMs: STALL.deadlineMs,
    });
    expect(reply.status).toBe(504);
    expect(reply.body).toMatchObject({ error: { code: 'deadline-exceeded' } });
    expect(reply.headers.get('retry-after')).toBeNull();
    // The service answers (late) once it unblocks; by then the server had stopped waiting.
    await service.waitFor((record) => record.event === 'call' && record.toolId === 'acme.stall');
    expect(executions(marker)).toBe(1);
  }, 60_000);

  it('fails a run with it as deadline-exceeded and never requeues it: the tool ran exactly once', async () => {
    const marker = join(root, 'run.marker');
    const started = await api(server.url, TOKEN, 'POST', '/v1/runs', {
      toolId: 'acme.stall',
      input: { marker, blockMs: STALL.blockMs },
      options: { wait: true, deadlineMs: STALL.deadlineMs },
    });
    expect(started).toMatchObject({ status: 201, body: { status: 'failed', error: { code: 'deadline-exceeded' } } });
    const runId = (started.body as { runId: string }).runId;
    // The service's own record of that call: it ran, and it ends only after the server gave up on it.
    await service.waitFor((record) => record.event === 'call' && record.runId === runId);
    expect(executions(marker)).toBe(1);
    const run = await api(server.url, TOKEN, 'GET', `/v1/runs/${runId}`);
    expect(run).toMatchObject({ status: 200, body: { status: 'failed', error: { code: 'deadline-exceeded' } } });
  }, 60_000);
});
