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
import { api } from './http.js';
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
    // A Retry-After of 1 s is retried only while the first attempt plus 1 s fits the bound (the smaller of
    // retryMs and timeoutMs): 2.5 s leaves a loaded machine 1.5 s for that first round trip.
    server = await startServer(serverConfig('remote', service, { retryMs: 2500, timeoutMs: 2500 }));
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

  it('answers pack-unavailable when the service stops answering (slow), and recovers', async () => {
    service.child.kill('SIGSTOP');
    try {
      const reply = await invokeCitation(server.url);
      expect(reply.status).toBe(503);
      expect(reply.body).toMatchObject({ error: { code: 'pack-unavailable' } });
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

  it('answers pack-unavailable when the service is down', async () => {
    await service.kill();
    const reply = await invokeCitation(server.url);
    expect(reply.status).toBe(503);
    expect(reply.body).toMatchObject({ error: { code: 'pack-unavailable' } });
    expect(await retries(server.url)).toBeGreaterThan(0);
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

describe('a remote pack service that comes back within the retry bound', () => {
  afterAll(async () => {
    await stopAllServers();
    await stopRemotePackServices();
    cleanupTempDirs();
  });

  it('answers the call that waited for it', async () => {
    const indexPath = await indexExamplePack(makeTempDir('remote-back-index'));
    const first = await startRemotePackService({ indexPath, token: PACK_TOKEN, env: ENV });
    // A bound generous enough for a loaded machine to restart the service inside it.
    const server = await startServer(serverConfig('remote-back', first, { retryMs: 60_000, timeoutMs: 60_000 }));
    await first.kill();
    const waiting = invokeCitation(server.url);
    const second = await startRemotePackService({ indexPath, token: PACK_TOKEN, port: first.port, env: ENV });
    expect(await waiting).toMatchObject({ status: 200, body: { output: { citation: '[Brown v. Board, p. 483]' } } });
    expect(await second.waitFor((record) => record.event === 'call')).toMatchObject({ outcome: 'ok' });
    expect(await retries(server.url)).toBeGreaterThan(0);
  }, 120_000);
});
