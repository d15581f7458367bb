import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cleanupTempDirs,
  type DevCredentialsFile,
  type LogRecord,
  makeTempDir,
  type RunningServer,
  readCredentials,
  startServer,
  stopAllServers,
  terminate,
  writeConfig,
} from './harness.js';
import { api, readRunStream } from './http.js';

interface RunBody {
  runId: string;
  status: string;
  output?: unknown;
}

interface ArtifactList {
  data: { key: string; blobId: string; size: number }[];
}

/** The step number of a slow-report `report step done` record for this run, else undefined. */
function stepOf(record: LogRecord, runId: string): number | undefined {
  const inner = record.record as Record<string, unknown> | undefined;
  if (record.event !== 'pack-log' || inner?.runId !== runId || inner.message !== 'report step done') return undefined;
  return inner.step as number;
}

function s3Client(url: string, credentials: DevCredentialsFile): S3Client {
  return new S3Client({
    endpoint: `${url}/s3`,
    forcePathStyle: true,
    region: 'us-east-1',
    credentials: { accessKeyId: credentials.s3.accessKeyId, secretAccessKey: credentials.s3.secretKey },
  });
}

// One deployment, exercised in order: what the first process stores, the restarted one must still serve.
describe('kindgi-server end to end (dist/main.js as a process)', () => {
  let dir: string;
  let dataDir: string;
  let configPath: string;
  let server: RunningServer;
  let credentials: DevCredentialsFile;
  const body = randomBytes(300_000);
  const key = 'reports/2026/e2e report+1.bin';
  let completedRunId = '';
  let cancelledRunId = '';
  let blobId = '';

  beforeAll(async () => {
    dir = makeTempDir('e2e');
    dataDir = join(dir, 'data');
    configPath = writeConfig(dir, dataDir, { s3: { port: 0 } });
    server = await startServer(configPath);
    credentials = readCredentials(dataDir);
  });

  afterAll(async () => {
    await stopAllServers();
    cleanupTempDirs();
  });

  it('logs where it listens and prints the generated development credentials once', () => {
    expect(server.listening).toMatchObject({ port: Number(new URL(server.url).port), packs: ['acme'] });
    expect(server.listening.development).toBe(true);
    expect(credentials.tenantId).toBe('dev');
    expect(server.stdout()).toContain(credentials.token);
    expect(server.stdout()).toContain(credentials.s3.secretKey);
    // Secrets on disk are the owner's only.
    expect(statSync(join(dataDir, 'credentials.json')).mode & 0o777).toBe(0o600);
  });

  it('calls a tool through the pack service', async () => {
    const reply = await api(server.url, credentials.token, 'POST', '/v1/tools/acme.format-citation/invoke', {
      input: { source: 'Brown v. Board', page: 483 },
    });
    expect(reply).toMatchObject({ status: 200, body: { output: { citation: '[Brown v. Board, p. 483]' } } });
  });

  it('refuses a call without a valid token', async () => {
    const reply = await api(server.url, 'not-the-token', 'POST', '/v1/tools/acme.format-citation/invoke', {
      input: { source: 'x' },
    });
    expect(reply.status).toBe(401);
  });

  it('runs a tool as a run and streams it over SSE to run.completed', async () => {
    const started = await api(server.url, credentials.token, 'POST', '/v1/runs', {
      toolId: 'acme.slow-report',
      input: { steps: 3, stepMs: 50 },
    });
    expect(started.status).toBe(202);
    const run = started.body as RunBody;
    completedRunId = run.runId;
    const events = await readRunStream(server.url, credentials.token, run.runId);
    expect(events.map((event) => event.event)).toEqual(['run.started', 'run.completed']);
    const last = JSON.parse(events[1]?.data ?? '{}') as RunBody;
    expect(last).toMatchObject({ runId: run.runId, status: 'completed', output: { stepsCompleted: 3 } });
  });

  it('cancels a long run: the stream ends with run.cancelled and the pack call is aborted', async () => {
    // 50 steps of 400 ms: the run cannot finish on its own while the test runs.
    const started = await api(server.url, credentials.token, 'POST', '/v1/runs', {
      toolId: 'acme.slow-report',
      input: { steps: 50, stepMs: 400 },
    });
    expect(started.status).toBe(202);
    const { runId } = started.body as RunBody;
    cancelledRunId = runId;
    // Cancel once the handler is running inside the pack service, so the abort has a call to reach.
    await server.waitFor((record) => stepOf(record, runId) === 1, `step 1 of ${runId}`);
    const cancelled = await api(server.url, credentials.token, 'POST', `/v1/runs/${runId}/cancel`);
    expect(cancelled).toMatchObject({ status: 200, body: { runId, status: 'cancelled' } });
    const events = await readRunStream(server.url, credentials.token, runId);
    expect(events.at(-1)?.event).toBe('run.cancelled');
    // The pack service itself saw the cancellation (the handler's slot is freed, not left running).
    const seen = await server.waitFor(
      (record) =>
        record.event === 'pack-log' &&
        (record.record as Record<string, unknown>).runId === runId &&
        (record.record as Record<string, unknown>).outcome === 'cancelled',
      `the pack service's cancelled record for ${runId}`,
    );
    expect(seen.packId).toBe('acme');
    const again = await api(server.url, credentials.token, 'POST', `/v1/runs/${runId}/cancel`);
    expect(again.status).toBe(409);
  });

  it('stores an S3 upload (@aws-sdk/client-s3) and serves it through /v1/artifacts', async () => {
    const s3 = s3Client(server.url, credentials);
    try {
      const put = await s3.send(
        new PutObjectCommand({ Bucket: 'artifacts', Key: key, Body: body, ContentType: 'application/octet-stream' }),
      );
      expect(put.ETag).toBeTruthy();
    } finally {
      s3.destroy();
    }
    const listed = await api(server.url, credentials.token, 'GET', '/v1/artifacts?limit=100');
    expect(listed.status).toBe(200);
    const entry = (listed.body as ArtifactList).data.find((item) => item.key === key);
    expect(entry).toMatchObject({ key, size: body.length });
    blobId = entry?.blobId ?? '';
    const read = await fetch(`${server.url}/v1/artifacts/${blobId}`, {
      headers: { authorization: `Bearer ${credentials.token}` },
    });
    expect(read.status).toBe(200);
    expect(Buffer.from(await read.arrayBuffer()).equals(body)).toBe(true);
  });

  it('serves the S3 surface at / on s3.port too, over the same storage', async () => {
    const s3Url = server.listening.s3Url as string;
    expect(server.listening.s3Port).toBe(Number(new URL(s3Url).port));
    const direct = new S3Client({
      endpoint: s3Url,
      forcePathStyle: true,
      region: 'us-east-1',
      credentials: { accessKeyId: credentials.s3.accessKeyId, secretAccessKey: credentials.s3.secretKey },
    });
    const viaApi = s3Client(server.url, credentials);
    try {
      await direct.send(new PutObjectCommand({ Bucket: 'artifacts', Key: 'direct/a.txt', Body: 'on the S3 port' }));
      const got = await viaApi.send(new GetObjectCommand({ Bucket: 'artifacts', Key: 'direct/a.txt' }));
      expect(await got.Body?.transformToString()).toBe('on the S3 port');
    } finally {
      direct.destroy();
      viaApi.destroy();
    }
  });

  it('drains on SIGTERM and, restarted on the same dataDir, keeps the object, the runs and the credentials', async () => {
    const first = await terminate(server);
    expect(first).toEqual({ code: 0, signal: null });
    expect(server.records.some((record) => record.event === 'stopped')).toBe(true);

    server = await startServer(configPath);
    expect(readCredentials(dataDir)).toEqual(credentials);
    // Printed once: the second start reuses them silently.
    expect(server.stdout()).not.toContain(credentials.token);

    const s3 = s3Client(server.url, credentials);
    try {
      const got = await s3.send(new GetObjectCommand({ Bucket: 'artifacts', Key: key }));
      const bytes = Buffer.from((await got.Body?.transformToByteArray()) ?? []);
      expect(bytes.equals(body)).toBe(true);
    } finally {
      s3.destroy();
    }
    const read = await fetch(`${server.url}/v1/artifacts/${blobId}`, {
      headers: { authorization: `Bearer ${credentials.token}` },
    });
    expect(Buffer.from(await read.arrayBuffer()).equals(body)).toBe(true);

    const completed = await api(server.url, credentials.token, 'GET', `/v1/runs/${completedRunId}`);
    expect(completed).toMatchObject({ status: 200, body: { status: 'completed', output: { stepsCompleted: 3 } } });
    const cancelled = await api(server.url, credentials.token, 'GET', `/v1/runs/${cancelledRunId}`);
    expect(cancelled).toMatchObject({ status: 200, body: { status: 'cancelled' } });
    // The journal survives too: a finished run's stream replays to its terminal event.
    const events = await readRunStream(server.url, credentials.token, completedRunId);
    expect(events.map((event) => event.event)).toEqual(['run.started', 'run.completed']);

    // Ctrl-C in a terminal drains the same way.
    server.child.kill('SIGINT');
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(server.records.at(-1)?.event).toBe('stopped');
  });
});
