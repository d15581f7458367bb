import { mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readPackServiceConfig } from '../src/process/config.js';

const base = { KINDGI_PACK_SERVICE_TOKEN: 'secret-token' };

describe('readPackServiceConfig', () => {
  it('applies the defaults', () => {
    const read = readPackServiceConfig([], base, '/work');
    expect(read).toEqual({
      kind: 'ok',
      value: {
        indexPath: '/app/index.json',
        moduleRoot: '/app',
        port: 8080,
        token: 'secret-token',
        tokenSource: 'env',
        maxConcurrency: 32,
        maxOutputBytes: 10 * 1024 * 1024,
        envCheck: 'strict',
        envFilter: 'on',
        log: { level: 'info', levels: {}, format: 'auto' },
      },
    });
  });

  it('reads the metrics settings: off by default, path and bearer token, each problem listed', () => {
    const on = readPackServiceConfig([], { ...base, KINDGI_PACK_SERVICE_METRICS: 'on' }, '/work');
    expect(on).toMatchObject({ kind: 'ok', value: { metrics: { path: '/metrics' } } });
    const full = readPackServiceConfig(
      [],
      {
        ...base,
        KINDGI_PACK_SERVICE_METRICS: 'on',
        KINDGI_PACK_SERVICE_METRICS_PATH: '/ops/metrics',
        KINDGI_PACK_SERVICE_METRICS_TOKEN: 'scrape-token',
      },
      '/work',
    );
    expect(full).toMatchObject({ kind: 'ok', value: { metrics: { path: '/ops/metrics', token: 'scrape-token' } } });
    const bad = readPackServiceConfig(
      [],
      {
        ...base,
        KINDGI_PACK_SERVICE_METRICS: 'yes',
        KINDGI_PACK_SERVICE_METRICS_PATH: 'metrics',
        KINDGI_PACK_SERVICE_METRICS_TOKEN: 'has space',
      },
      '/work',
    );
    expect(bad).toEqual({
      kind: 'err',
      error: ['KINDGI_PACK_SERVICE_METRICS must be `off` or `on`, not "yes"'],
    });
    const badOn = readPackServiceConfig(
      [],
      {
        ...base,
        KINDGI_PACK_SERVICE_METRICS: 'on',
        KINDGI_PACK_SERVICE_METRICS_PATH: 'metrics',
        KINDGI_PACK_SERVICE_METRICS_TOKEN: 'has space',
      },
      '/work',
    );
    expect(badOn.kind === 'err' ? badOn.error : []).toEqual([
      'KINDGI_PACK_SERVICE_METRICS_PATH must be a path starting with /, not "metrics"',
      expect.stringMatching(/^KINDGI_PACK_SERVICE_METRICS_TOKEN may hold only printable ASCII/),
    ]);
  });

  it('reads flags (both forms), env settings, and resolves paths against cwd', () => {
    const read = readPackServiceConfig(
      ['--index', 'dist/index.json', '--module-root=dist/bundles', '--bundle-map', 'map.json', '--host', '127.0.0.1'],
      {
        KINDGI_PACK_SERVICE_TOKEN: '  padded-token \n',
        PORT: '0',
        KINDGI_PACK_SERVICE_MAX_CONCURRENCY: '4',
        KINDGI_PACK_SERVICE_MAX_OUTPUT_BYTES: '2048',
        KINDGI_PACK_ENV_CHECK: 'warn',
        KINDGI_PACK_ENV_FILTER: 'off',
        KINDGI_LOG_LEVEL: 'debug',
        KINDGI_LOG_LEVELS: 'pack.tool=warn, pack=error',
        KINDGI_LOG_FORMAT: 'json',
      },
      '/srv',
    );
    expect(read).toEqual({
      kind: 'ok',
      value: {
        indexPath: '/srv/dist/index.json',
        moduleRoot: '/srv/dist/bundles',
        bundleMapPath: '/srv/map.json',
        host: '127.0.0.1',
        port: 0,
        token: 'padded-token',
        tokenSource: 'env',
        maxConcurrency: 4,
        maxOutputBytes: 2048,
        envCheck: 'warn',
        envFilter: 'off',
        log: { level: 'debug', levels: { 'pack.tool': 'warn', pack: 'error' }, format: 'json' },
      },
    });
  });

  it('takes the index from KINDGI_PACK_INDEX and the module root from its directory', () => {
    const read = readPackServiceConfig([], { ...base, KINDGI_PACK_INDEX: '/p/out/index.json' });
    expect(read.kind === 'ok' && [read.value.indexPath, read.value.moduleRoot]).toEqual([
      '/p/out/index.json',
      '/p/out',
    ]);
    const flag = readPackServiceConfig(['--index', '/a/i.json'], { ...base, KINDGI_PACK_INDEX: '/p/out/index.json' });
    expect(flag.kind === 'ok' && flag.value.indexPath).toBe('/a/i.json');
  });

  it('collects every problem at once with the published messages', () => {
    const read = readPackServiceConfig(['--bundle-map', '', '--host=', '--verbose'], {
      KINDGI_PACK_SERVICE_TOKEN: '   ',
      PORT: 'eighty',
      KINDGI_PACK_SERVICE_MAX_CONCURRENCY: '0',
      KINDGI_PACK_ENV_CHECK: 'loose',
      KINDGI_PACK_ENV_FILTER: 'maybe',
    });
    expect(read).toEqual({
      kind: 'err',
      error: [
        '--bundle-map needs a path',
        '--host needs an address',
        'Unknown argument "--verbose"',
        'PORT must be a port number, got "eighty"',
        'KINDGI_PACK_SERVICE_TOKEN is required',
        'KINDGI_PACK_SERVICE_MAX_CONCURRENCY must be a positive integer, got "0"',
        'KINDGI_PACK_ENV_CHECK must be `strict` or `warn`, not "loose"',
        'KINDGI_PACK_ENV_FILTER must be `on` or `off`, not "maybe"',
      ],
    });
  });

  it('refuses a token with spaces or non-printable characters, and out-of-range ports', () => {
    for (const token of ['has space', 'tab\there', 'é-token']) {
      const read = readPackServiceConfig([], { KINDGI_PACK_SERVICE_TOKEN: token, PORT: '65536' });
      expect(read).toEqual({
        kind: 'err',
        error: [
          'PORT must be a port number, got "65536"',
          'KINDGI_PACK_SERVICE_TOKEN may hold only printable ASCII without spaces (it travels in an HTTP header). Use a random value such as `openssl rand -hex 32`.',
        ],
      });
    }
  });

  it('treats an empty KINDGI_PACK_ENV_CHECK as strict and refuses bad log settings', () => {
    const read = readPackServiceConfig([], { ...base, KINDGI_PACK_ENV_CHECK: '' });
    expect(read.kind === 'ok' && read.value.envCheck).toBe('strict');
    const bad = readPackServiceConfig([], {
      ...base,
      KINDGI_LOG_LEVEL: 'loud',
      KINDGI_LOG_LEVELS: 'pack',
      KINDGI_LOG_FORMAT: 'xml',
    });
    expect(bad).toEqual({
      kind: 'err',
      error: [
        'KINDGI_LOG_LEVEL must be one of debug, info, warn, error, not "loud"',
        'KINDGI_LOG_LEVELS takes subsystem=level pairs (levels: debug, info, warn, error), not "pack"',
        'KINDGI_LOG_FORMAT must be `auto`, `json` or `pretty`, not "xml"',
      ],
    });
  });

  it('reads the token from --token-fd (it wins over the environment) and closes the descriptor', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kindgi-token-fd-'));
    try {
      const file = join(dir, 'token');
      writeFileSync(file, '  fd-token-0123 \n');
      const fd = openSync(file, 'r');
      const read = readPackServiceConfig(['--token-fd', String(fd)], { KINDGI_PACK_SERVICE_TOKEN: 'env-token' });
      expect(read.kind === 'ok' && [read.value.token, read.value.tokenSource]).toEqual(['fd-token-0123', 'fd']);
      // Closed after reading: the same number no longer reads.
      const again = readPackServiceConfig([`--token-fd=${fd}`], {});
      expect(again.kind === 'err' && again.error[0]).toMatch(
        new RegExp(`^Cannot read the token from file descriptor ${fd}: EBADF`),
      );
      // The process entry passes the metrics token to its isolated child on the token's second line.
      writeFileSync(file, 'fd-token-0123\nmetrics-token-0123');
      const both = readPackServiceConfig(['--token-fd', String(openSync(file, 'r'))], {
        KINDGI_PACK_SERVICE_METRICS: 'on',
      });
      expect(both).toMatchObject({
        kind: 'ok',
        value: { token: 'fd-token-0123', metrics: { path: '/metrics', token: 'metrics-token-0123' } },
      });
      writeFileSync(file, 'has space');
      const spaced = readPackServiceConfig(['--token-fd', String(openSync(file, 'r'))], {});
      expect(spaced.kind === 'err' && spaced.error[0]).toMatch(
        /^The token on file descriptor \d+ may hold only printable ASCII/,
      );
      expect(readPackServiceConfig(['--token-fd', '1'], { KINDGI_PACK_SERVICE_TOKEN: 'x' })).toEqual({
        kind: 'err',
        error: ['--token-fd must be a file descriptor number of 3 or more, got "1"'],
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
