import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadServerConfig } from '../src/config/config.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function configFile(value: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'kindgi-blobs-config-'));
  dirs.push(dir);
  const path = join(dir, 'kindgi.server.json');
  writeFileSync(path, JSON.stringify(value));
  return path;
}

const SECRET = 'do-not-print-this-secret';

describe('the blobs config block', () => {
  it('reads kind s3 from the file, with the secret from KINDGI_SERVER_BLOBS_SECRET_ACCESS_KEY on top', () => {
    const configPath = configFile({
      database: { url: 'postgres://kindgi@db/kindgi' },
      blobs: { kind: 's3', endpoint: 'http://minio:9000', bucket: 'kindgi-blobs', accessKeyId: 'kindgi' },
    });
    const loaded = loadServerConfig({
      configPath,
      env: { KINDGI_SERVER_BLOBS_SECRET_ACCESS_KEY: SECRET, KINDGI_SERVER_BLOBS_FORCE_PATH_STYLE: 'true' },
    });
    if (loaded.kind === 'err') throw new Error(loaded.error.join('; '));
    expect(loaded.value.config.blobs).toEqual({
      kind: 's3',
      endpoint: 'http://minio:9000',
      region: 'us-east-1',
      bucket: 'kindgi-blobs',
      accessKeyId: 'kindgi',
      secretAccessKey: SECRET,
      forcePathStyle: true,
    });
  });

  it('takes every field from the environment alone', () => {
    const loaded = loadServerConfig({
      env: {
        KINDGI_SERVER_BLOBS_KIND: 's3',
        KINDGI_SERVER_BLOBS_REGION: 'eu-west-1',
        KINDGI_SERVER_BLOBS_BUCKET: 'b-1',
        KINDGI_SERVER_BLOBS_ACCESS_KEY_ID: 'id',
        KINDGI_SERVER_BLOBS_SECRET_ACCESS_KEY: SECRET,
        KINDGI_SERVER_BLOBS_PREFIX: 'prod/',
      },
    });
    if (loaded.kind === 'err') throw new Error(loaded.error.join('; '));
    expect(loaded.value.config.blobs).toMatchObject({
      kind: 's3',
      region: 'eu-west-1',
      bucket: 'b-1',
      prefix: 'prod/',
    });
  });

  it('names what is wrong without quoting the secret', () => {
    const fromEnv = loadServerConfig({ env: { KINDGI_SERVER_BLOBS_FORCE_PATH_STYLE: SECRET } });
    expect(fromEnv.kind === 'err' && fromEnv.error).toEqual([
      'KINDGI_SERVER_BLOBS_FORCE_PATH_STYLE must be true or false',
    ]);
    const fromFile = loadServerConfig({
      configPath: configFile({ blobs: { kind: 's3', bucket: 'x', secretAccessKey: 7, extra: SECRET } }),
    });
    expect(fromFile.kind).toBe('err');
    const problems = fromFile.kind === 'err' ? fromFile.error.join('\n') : '';
    expect(problems).toContain('blobs.bucket');
    expect(problems).toContain('blobs.accessKeyId');
    expect(problems).toContain('blobs.secretAccessKey');
    expect(problems).not.toContain(SECRET);
  });

  it('is absent by default: the embedded storage', () => {
    const loaded = loadServerConfig({ env: {} });
    expect(loaded.kind === 'ok' && loaded.value.config.blobs).toBeUndefined();
  });
});
