import { readFileSync, writeFileSync } from 'node:fs';
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
import { api, readRunStream } from './http.js';
import {
  indexExamplePack,
  type RemotePackService,
  startRemotePackService,
  stopRemotePackServices,
} from './pack-fixtures.js';

const TOKEN = 'remote-pack-api-token-0123456789';
const PACK_TOKEN = 'remote-pack-service-token-0123456789';
const METRICS_TOKEN = 'remote-pack-metrics-token-0123456789';
const ENV = { ACME_API_BASE: 'https://cases.acme.invalid' };
const CITATION = { input: { source: 'Brown v. Board', page: 483 } };
const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';

function invokeCitation(url: string, headers: Record<string, string> = {}) {
  return api(url, TOKEN, 'POST', '/v1/tools/acme.format-citation/invoke', CITATION, headers);
}

function serverConfig(label: string, service: RemotePackService, remote: Record<string, unknown>): string {
  const root = makeTempDir(label);
  return writeConfig(root, join(root, 'data'), {
    tokens: [{ token: TOKEN, tenantId: 'tenant-remote' }],
    packs: [{ url: service.url, token: PACK_TOKEN, pollMs: 100, ...remote }],
    metrics: { enabled: true, token: METRICS_TOKEN },
  });
}

async function retries(url: string): Promise<number> {
  const response = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  const line = (await response.text()).split('\n').find((row) => row.startsWith('kindgi_pack_remote_retries_total{'));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

describe('a remote pack service ({ url, token } in the server config)', () => {
  let workDir: string;
  let indexPath: string;
  let service: RemotePackService;
  let server: RunningServer;

  beforeAll(async () => {
    workDir = makeTempDir('remote-index');
    indexPath = await indexExamplePack(workDir);
    service = await startRemotePackService({ indexPath, token: PACK_TOKEN, env: ENV });
    // A Retry-After of 1 s is retried only while the first attempt plus 1 s fits retryMs: 2.5 s leaves a
    // loaded machine 1.5 s for that first round trip.
    server = await startServer(serverConfig('remote', service, { retryMs: 2500 }));
  }, 120_000);

  afterAll(async () => {
    await stopAllServers();
    await stopRemotePackServices();
    cleanupTempDirs();
  });

  it('lists the tools the service serves, with their schemas, and calls them with a traceparent', async () => {
    const tools = await api(server.url, TOKEN, 'GET', '/v1/tools/acme.format-citation');
    expect(tools.status).toBe(200);
    expect(JSON.stringify(tools.body)).toContain('"minLength":1');
    const reply = await invokeCitation(server.url, { traceparent: `00-${TRACE_ID}-00f067aa0ba902b7-01` });
    expect(reply).toMatchObject({ status: 200, body: { output: { citation: '[Brown v. Board, p. 483]' } } });
    const call = await service.waitFor((record) => record.event === 'call');
    expect(call).toMatchObject({ traceId: TRACE_ID, outcome: 'ok', toolId: 'acme.format-citation' });
  }, 60_000);

  it('answers deadline-exceeded (it may have run) when the service stops answering, and recovers', async () => {
    service.child.kill('SIGSTOP');
    try {
      // The call is delivered (the kernel takes it) and then nothing answers: past its deadline and the grace
      // it is 504 deadline-exceeded, never pack-unavailable (which says the call did not run).
      const reply = await api(server.url, TOKEN, 'POST', '/v1/tools/acme.format-citation/invoke', {
        ...CITATION,
        deadlineMs: 500,
      });
      expect(reply.status).toBe(504);
      expect(reply.body).toMatchObject({ error: { code: 'deadline-exceeded' } });
      await server.waitFor((record) => record.event === 'pack-remote-unready', 'pack-remote-unready');
    } finally {
      service.child.kill('SIGCONT');
    }
    await server.waitFor(
      (record) => record.event === 'pack-remote-ready' && server.records.some((r) => r.event === 'pack-remote-unready'),
      'pack-remote-ready',
    );
    expect((await invokeCitation(server.url)).status).toBe(200);
  }, 60_000);

  it('answers pack-unavailable with Retry-After at once when the service is down (connections refused)', async () => {
    await service.kill();
    const before = await retries(server.url);
    const reply = await invokeCitation(server.url);
    expect(reply.status).toBe(503);
    expect(reply.body).toMatchObject({ error: { code: 'pack-unavailable' } });
    expect(reply.headers.get('retry-after')).toBe('1');
    // Answered without waiting through retries: nothing listens, so the caller comes back instead.
    expect(await retries(server.url)).toBe(before);
  }, 60_000);

  it('reads the new tools when the service comes back with another artifactVersion', async () => {
    const index = JSON.parse(readFileSync(indexPath, 'utf8')) as {
      artifactVersion: string;
      tools: { id: string; description?: string }[];
    };
    index.artifactVersion = `${index.artifactVersion}.2`;
    for (const tool of index.tools) if (tool.id === 'acme.format-citation') tool.description = 'Formats v2 citations.';
    const nextIndex = join(workDir, 'index-v2.json');
    writeFileSync(nextIndex, JSON.stringify(index));
    service = await startRemotePackService({ indexPath: nextIndex, token: PACK_TOKEN, port: service.port, env: ENV });
    await server.waitFor(
      (record) => record.event === 'pack-reloaded' && record.artifactVersion === index.artifactVersion,
      'pack-reloaded',
    );
    const tool = await api(server.url, TOKEN, 'GET', '/v1/tools/acme.format-citation');
    expect(JSON.stringify(tool.body)).toContain('Formats v2 citations.');
    expect((await invokeCitation(server.url)).status).toBe(200);
  }, 60_000);

  it('retries a 503 with Retry-After within its bound, then answers pack-unavailable', async () => {
    await service.kill();
    // Without its required env the service answers every call 503 `missing env` with Retry-After: 1.
    service = await startRemotePackService({ indexPath, token: PACK_TOKEN, port: service.port });
    const before = await retries(server.url);
    const reply = await invokeCitation(server.url);
    expect(reply.status).toBe(503);
    expect(reply.body).toMatchObject({ error: { code: 'pack-unavailable' } });
    expect(reply.headers.get('retry-after')).toBe('1');
    expect(await retries(server.url)).toBeGreaterThan(before);
  }, 60_000);
});

describe('a remote pack service that is down, then comes back', () => {
  afterAll(async () => {
    await stopAllServers();
    await stopRemotePackServices();
    cleanupTempDirs();
  });

  it('refuses calls at once with Retry-After meanwhile, and runs a run it accepted once it is back', async () => {
    const indexPath = await indexExamplePack(makeTempDir('remote-back-index'));
    const first = await startRemotePackService({ indexPath, token: PACK_TOKEN, env: ENV });
    // However generous retryMs is, a refused connection is not waited through: the run queue does that.
    const server = await startServer(serverConfig('remote-back', first, { retryMs: 60_000 }));
    await first.kill();
    const refused = await invokeCitation(server.url);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    const accepted = await api(server.url, TOKEN, 'POST', '/v1/runs', { toolId: 'acme.format-citation', ...CITATION });
    expect(accepted.status).toBe(202);
    const runId = (accepted.body as { runId: string }).runId;
    const second = await startRemotePackService({ indexPath, token: PACK_TOKEN, port: first.port, env: ENV });
    expect(await second.waitFor((record) => record.event === 'call' && record.runId === runId)).toMatchObject({
      outcome: 'ok',
    });
    const events = await readRunStream(server.url, TOKEN, runId);
    expect(events.map((event) => event.event)).toEqual(['run.started', 'run.completed']);
    const run = await api(server.url, TOKEN, 'GET', `/v1/runs/${runId}`);
    expect(run).toMatchObject({
      status: 200,
      body: { status: 'completed', output: { citation: '[Brown v. Board, p. 483]' } },
    });
    expect(await retries(server.url)).toBe(0);
  }, 120_000);
});
