import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadServerConfig } from '../src/config/config.js';
import { cleanupTempDirs, makeTempDir } from './harness.js';

function load(config: Record<string, unknown>, env: NodeJS.ProcessEnv = {}) {
  const dir = makeTempDir('telemetry-config');
  const configPath = join(dir, 'kindgi.server.json');
  writeFileSync(configPath, JSON.stringify(config));
  return loadServerConfig({ configPath, env, cwd: dir });
}

describe('remote packs and metrics in the server config', () => {
  afterAll(() => cleanupTempDirs());

  it('takes a remote pack with its defaults, and leaves its url alone when resolving paths', () => {
    const loaded = load({ packs: [{ url: 'http://pack.internal:8080', token: 'remote-token-1' }, { dir: 'pack' }] });
    expect(loaded.kind).toBe('ok');
    if (loaded.kind !== 'ok') return;
    expect(loaded.value.config.packs[0]).toEqual({
      url: 'http://pack.internal:8080',
      token: 'remote-token-1',
      pollMs: 5000,
      minRefreshMs: 10_000,
      retryMs: 5000,
      // No deadline of its own: a call naming none gets the one default, whichever pack serves it.
      startTimeoutMs: 30_000,
      allowInsecureSecrets: false,
    });
    expect((loaded.value.config.packs[1] as { dir: string }).dir).toMatch(/\/pack$/);
  });

  it("names a bad pack's own fields, whichever kind it is, never just the union", () => {
    const loaded = load({
      packs: [
        { dir: 'pack', watch: 'yes' },
        { url: 'ftp://pack', token: 'remote-token-1' },
      ],
    });
    expect(loaded.kind).toBe('err');
    if (loaded.kind !== 'err') return;
    expect(loaded.error).toHaveLength(2);
    expect(loaded.error[0]).toMatch(/packs\.0\.watch: /);
    expect(loaded.error[1]).toMatch(/packs\.1\.url: /);
  });

  it("merges KINDGI_SERVER_METRICS_* into the file's metrics block and never quotes a bad token", () => {
    const merged = load({ metrics: { enabled: true } }, { KINDGI_SERVER_METRICS_TOKEN: 'metrics-token-0123456789' });
    expect(merged.kind === 'ok' && merged.value.config.metrics).toEqual({
      enabled: true,
      path: '/metrics',
      token: 'metrics-token-0123456789',
    });
    const off = load({});
    expect(off.kind === 'ok' && off.value.config.metrics.enabled).toBe(false);
    const short = load({ metrics: { enabled: true } }, { KINDGI_SERVER_METRICS_TOKEN: 'tiny-secret' });
    expect(short.kind).toBe('err');
    expect(JSON.stringify(short)).not.toContain('tiny-secret');
  });
});
