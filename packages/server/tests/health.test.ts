import { mkdirSync, rmSync } from 'node:fs';
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

async function probe(url: string, path: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${url}${path}`);
  return { status: response.status, body: await response.json() };
}

describe('health probes (dist/main.js)', () => {
  let server: RunningServer;
  let dataDir: string;

  beforeAll(async () => {
    const dir = makeTempDir('health');
    dataDir = join(dir, 'data');
    server = await startServer(
      writeConfig(dir, dataDir, { tokens: [{ token: 'kgi_test_health_0123456789abcdef', tenantId: 'tenant-h' }] }),
    );
  });

  afterAll(async () => {
    await stopAllServers();
    cleanupTempDirs();
  });

  it('answers /healthz and /health without a token', async () => {
    for (const path of ['/healthz', '/health'])
      expect(await probe(server.url, path)).toEqual({ status: 200, body: { status: 'ok' } });
  });

  it('is ready with storage and the pack serving, and not ready while storage is gone', async () => {
    expect(await probe(server.url, '/readyz')).toEqual({
      status: 200,
      body: { status: 'ready', checks: { storage: { ok: true }, 'pack:acme': { ok: true } } },
    });
    const objects = join(dataDir, 'objects');
    rmSync(objects, { recursive: true, force: true });
    const gone = await probe(server.url, '/readyz');
    expect(gone.status).toBe(503);
    expect(gone.body).toMatchObject({
      error: { code: 'not-ready', details: { checks: { storage: { ok: false }, 'pack:acme': { ok: true } } } },
    });
    expect(JSON.stringify(gone.body)).not.toContain(dataDir);
    // Liveness is about the process only.
    expect((await probe(server.url, '/healthz')).status).toBe(200);
    mkdirSync(objects);
    expect((await probe(server.url, '/readyz')).status).toBe(200);
  });
});
