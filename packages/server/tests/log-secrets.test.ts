import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, describe, expect, it } from 'vitest';
import {
  cleanupTempDirs,
  makeTempDir,
  startServer,
  stderrOf,
  stopAllServers,
  terminate,
  writeConfig,
} from './harness.js';
import { api, readRunStream } from './http.js';
import { indexExamplePack, startRemotePackService, stopRemotePackServices } from './pack-fixtures.js';

const SECRETS = {
  apiToken: 'secret-api-token-7f3a9c1e5b2d4068',
  packToken: 'secret-pack-token-0e4d8b2a6c1f3957',
  metricsToken: 'secret-metrics-token-c9e1a7f35b2d',
  s3SecretKey: 'secret-s3-key-5d2b9e7a1c4f8036aa',
  cursorSecret: 'secret-cursor-key-3b8e1d6a9f2c4075e1',
  // What a caller sends wrongly is a secret too (someone's mistyped token).
  wrongToken: 'secret-wrong-token-a1b2c3d4e5f60718',
};
const S3 = { accessKeyId: 'LOGSECRETKEY01', bucket: 'log-secrets' };

describe('the logs of a full end-to-end run', () => {
  afterAll(async () => {
    await stopAllServers();
    await stopRemotePackServices();
    cleanupTempDirs();
  });

  it('never carry a configured secret, a bearer token or an S3 secret key', async () => {
    const root = makeTempDir('log-secrets');
    const service = await startRemotePackService({
      indexPath: await indexExamplePack(root),
      token: SECRETS.packToken,
      env: { ACME_API_BASE: 'https://cases.acme.invalid' },
    });
    const configPath = writeConfig(root, join(root, 'data'), {
      tokens: [{ token: SECRETS.apiToken, tenantId: 'tenant-logs' }],
      s3Credentials: [{ ...S3, secretKey: SECRETS.s3SecretKey, tenantId: 'tenant-logs' }],
      packs: [{ url: service.url, token: SECRETS.packToken, pollMs: 100, retryMs: 500, timeoutMs: 2000 }],
      metrics: { enabled: true, token: SECRETS.metricsToken },
      cursorSecret: SECRETS.cursorSecret,
    });
    const server = await startServer(configPath, {
      env: { OTEL_TRACES_EXPORTER: 'none', KINDGI_LOG_LEVEL: 'debug' },
    });

    const citation = { input: { source: 'Brown v. Board', page: 483 } };
    expect(
      (await api(server.url, SECRETS.apiToken, 'POST', '/v1/tools/acme.format-citation/invoke', citation)).status,
    ).toBe(200);
    const failing = await api(server.url, SECRETS.apiToken, 'POST', '/v1/tools/acme.lookup-case/invoke', {
      input: { caseId: 'CASE-0000' },
    });
    expect(failing.status).toBeGreaterThanOrEqual(400);
    expect((await api(server.url, SECRETS.wrongToken, 'GET', '/v1/tools')).status).toBe(401);
    const metrics = await fetch(`${server.url}/metrics`, {
      headers: { authorization: `Bearer ${SECRETS.wrongToken}` },
    });
    expect(metrics.status).toBe(401);
    await metrics.body?.cancel();

    const s3 = new S3Client({
      endpoint: `${server.url}/s3`,
      forcePathStyle: true,
      region: 'us-east-1',
      credentials: { accessKeyId: S3.accessKeyId, secretAccessKey: SECRETS.s3SecretKey },
    });
    const body = randomBytes(8192);
    await s3.send(new PutObjectCommand({ Bucket: S3.bucket, Key: 'a/b.bin', Body: body }));
    const got = await s3.send(new GetObjectCommand({ Bucket: S3.bucket, Key: 'a/b.bin' }));
    await got.Body?.transformToByteArray();
    const forged = new S3Client({
      endpoint: `${server.url}/s3`,
      forcePathStyle: true,
      region: 'us-east-1',
      credentials: { accessKeyId: S3.accessKeyId, secretAccessKey: SECRETS.wrongToken },
    });
    await expect(forged.send(new GetObjectCommand({ Bucket: S3.bucket, Key: 'a/b.bin' }))).rejects.toThrow();
    s3.destroy();
    forged.destroy();

    const run = await api(server.url, SECRETS.apiToken, 'POST', '/v1/runs', {
      toolId: 'acme.slow-report',
      input: { steps: 2, stepMs: 10 },
    });
    const runId = (run.body as { runId: string }).runId;
    expect((await readRunStream(server.url, SECRETS.apiToken, runId)).at(-1)?.event).toBe('run.completed');

    // The pack service gone: the retry and the unready polls are logged too.
    await service.kill();
    expect(
      (await api(server.url, SECRETS.apiToken, 'POST', '/v1/tools/acme.format-citation/invoke', citation)).status,
    ).toBe(503);
    await server.waitFor((record) => record.event === 'pack-remote-unready', 'pack-remote-unready');
    expect(await terminate(server)).toMatchObject({ code: 0 });

    const logs = [stderrOf(server), server.stdout(), ...service.lines].join('\n');
    expect(logs).toContain('pack-remote-unready');
    for (const [name, secret] of Object.entries(SECRETS)) {
      expect(logs.includes(secret), `${name} appears in the logs`).toBe(false);
    }
  }, 180_000);
});
