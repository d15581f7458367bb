import { describe, expect, it } from 'vitest';
import { readPackServiceConfig } from '../src/config.js';

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
        maxConcurrency: 32,
        envCheck: 'strict',
        envFilter: 'on',
        log: { level: 'info', levels: {}, format: 'auto' },
      },
    });
  });

  it('reads flags (both forms), env settings, and resolves paths against cwd', () => {
    const read = readPackServiceConfig(
      ['--index', 'dist/index.json', '--module-root=dist/bundles', '--bundle-map', 'map.json', '--host', '127.0.0.1'],
      {
        KINDGI_PACK_SERVICE_TOKEN: '  padded-token \n',
        PORT: '0',
        KINDGI_PACK_SERVICE_MAX_CONCURRENCY: '4',
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
        maxConcurrency: 4,
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
});
