import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import parsePrometheusTextFormat, { type PrometheusFamily } from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cleanupTempDirs,
  makeTempDir,
  type RunningServer,
  startServer,
  stopAllServers,
  writeConfig,
} from './harness.js';
import { api, openRunStream } from './http.js';
import { copyExamplePack } from './pack-fixtures.js';

const TOKEN = 'metrics-test-api-token-0123456789';
const METRICS_TOKEN = 'metrics-scrape-token-0123456789';
const S3 = { accessKeyId: 'METRICSKEY01', secretKey: 'metrics-s3-secret-key-0123456789', bucket: 'metrics-bucket' };

async function scrape(url: string, token?: string): Promise<{ status: number; text: string; type: string }> {
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const response = await fetch(`${url}/metrics`, { headers });
  return { status: response.status, text: await response.text(), type: response.headers.get('content-type') ?? '' };
}

interface Scrape {
  families: Map<string, PrometheusFamily>;
  text: string;
}

async function families(url: string): Promise<Scrape> {
  const scraped = await scrape(url, METRICS_TOKEN);
  expect(scraped.status).toBe(200);
  expect(scraped.type).toContain('text/plain');
  const parsed = parsePrometheusTextFormat(scraped.text);
  return { families: new Map(parsed.map((family) => [family.name, family])), text: scraped.text };
}

/**
 * A histogram's observation count for one label set. The parser keeps bucket counts but drops a histogram's
 * labels, so the family is checked through it and the `_count` line read from the text.
 */
function histogramCount(scraped: Scrape, name: string, labels: Record<string, string>): number {
  expect(scraped.families.get(name)?.type).toBe('HISTOGRAM');
  const wanted = Object.entries(labels)
    .map(([label, value]) => `${label}="${value}"`)
    .join(',');
  const line = scraped.text.split('\n').find((row) => row.startsWith(`${name}_count{${wanted}}`));
  if (!line) throw new Error(`no ${name}_count{${wanted}} in the scrape`);
  return Number(line.slice(line.lastIndexOf(' ') + 1));
}

/** The value of the one sample of `name` whose labels include `labels`. */
function sample(scraped: Scrape, name: string, labels: Record<string, string> = {}): number {
  const family = scraped.families.get(name);
  if (!family) throw new Error(`no ${name} in the scrape`);
  const found = family.metrics.filter((metric) =>
    Object.entries(labels).every(([label, value]) => metric.labels?.[label] === value),
  );
  if (found.length === 0) throw new Error(`no ${name} sample with ${JSON.stringify(labels)}`);
  return found.reduce((sum, metric) => sum + Number(metric.value), 0);
}

describe('GET /metrics of kindgi-server (dist/main.js as a process)', () => {
  let server: RunningServer;
  let packDir: string;

  beforeAll(async () => {
    const root = makeTempDir('metrics');
    packDir = copyExamplePack(root);
    const configPath = writeConfig(root, join(root, 'data'), {
      tokens: [{ token: TOKEN, tenantId: 'tenant-metrics' }],
      s3Credentials: [{ ...S3, tenantId: 'tenant-metrics' }],
      packs: [{ dir: packDir, watch: true, env: { ACME_API_BASE: 'https://cases.acme.invalid' } }],
      metrics: { enabled: true, token: METRICS_TOKEN },
    });
    server = await startServer(configPath);
  }, 120_000);

  afterAll(async () => {
    await stopAllServers();
    cleanupTempDirs();
  });

  it('answers 401 without the metrics token, or with a wrong one', async () => {
    expect((await scrape(server.url)).status).toBe(401);
    expect((await scrape(server.url, 'not-the-metrics-token-at-all')).status).toBe(401);
    // The API's own tokens are not the scrape token.
    expect((await scrape(server.url, TOKEN)).status).toBe(401);
  });

  it('carries every series after tool calls, S3 PUT/GET, a run, a replay, a stream and a swap', async () => {
    const citation = { input: { source: 'Brown v. Board', page: 483 } };
    const ok = await api(server.url, TOKEN, 'POST', '/v1/tools/acme.format-citation/invoke', citation);
    expect(ok.status).toBe(200);
    const thrown = await api(server.url, TOKEN, 'POST', '/v1/tools/acme.lookup-case/invoke', {
      input: { caseId: 'CASE-0000' },
    });
    expect(thrown.status).toBeGreaterThanOrEqual(400);
    const key = { 'idempotency-key': 'metrics-replay-1' };
    const first = await api(server.url, TOKEN, 'POST', '/v1/tools/acme.format-citation/invoke', citation, key);
    const replay = await api(server.url, TOKEN, 'POST', '/v1/tools/acme.format-citation/invoke', citation, key);
    expect(first.status).toBe(200);
    expect(replay.headers.get('x-idempotent-replay')).toBe('true');

    const s3 = new S3Client({
      endpoint: `${server.url}/s3`,
      forcePathStyle: true,
      region: 'us-east-1',
      credentials: { accessKeyId: S3.accessKeyId, secretAccessKey: S3.secretKey },
    });
    const body = randomBytes(64 * 1024);
    await s3.send(new PutObjectCommand({ Bucket: S3.bucket, Key: 'reports/secret-key-name.bin', Body: body }));
    const got = await s3.send(new GetObjectCommand({ Bucket: S3.bucket, Key: 'reports/secret-key-name.bin' }));
    expect(
      Buffer.from(await (got.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray()),
    ).toEqual(body);
    s3.destroy();

    const run = await api(server.url, TOKEN, 'POST', '/v1/runs', {
      toolId: 'acme.slow-report',
      input: { steps: 40, stepMs: 100 },
    });
    expect(run.status).toBe(202);
    const runId = (run.body as { runId: string }).runId;
    const stream = await openRunStream(server.url, TOKEN, runId);
    const during = await families(server.url);
    expect(sample(during, 'kindgi_sse_streams_open')).toBe(1);
    const events = await stream.events();
    expect(events.at(-1)?.event).toBe('run.completed');

    const firstChild = await server.waitFor((record) => record.event === 'pack-child-serving', 'pack-child-serving');
    const tool = join(packDir, 'tools', 'format-citation', 'index.ts');
    writeFileSync(tool, readFileSync(tool, 'utf8').replace(']` };', '] (ed.)` };'));
    await server.waitFor((record) => record.event === 'pack-reloaded', 'pack-reloaded');
    await server.waitFor(
      (record) => record.event === 'pack-child-exited' && record.pid === firstChild.pid,
      'the replaced child exiting',
    );

    const all = await families(server.url);
    const v1 = { surface: 'v1', route: '/v1/tools/:toolId/invoke', method: 'POST' };
    expect(sample(all, 'kindgi_http_requests_total', { ...v1, status: '200' })).toBeGreaterThanOrEqual(3);
    expect(histogramCount(all, 'kindgi_http_request_duration_seconds', v1)).toBeGreaterThanOrEqual(3);
    expect(
      sample(all, 'kindgi_http_requests_total', {
        surface: 's3',
        route: '/s3/:bucket/:key',
        method: 'PUT',
        status: '200',
      }),
    ).toBe(1);
    expect(
      sample(all, 'kindgi_http_requests_total', {
        surface: 's3',
        route: '/s3/:bucket/:key',
        method: 'GET',
        status: '200',
      }),
    ).toBe(1);
    expect(sample(all, 'kindgi_s3_received_bytes_total')).toBeGreaterThanOrEqual(body.length);
    expect(sample(all, 'kindgi_s3_sent_bytes_total')).toBeGreaterThanOrEqual(body.length);
    expect(
      sample(all, 'kindgi_tool_calls_total', { tool: 'acme.format-citation', outcome: 'ok' }),
    ).toBeGreaterThanOrEqual(2);
    expect(sample(all, 'kindgi_tool_calls_total', { tool: 'acme.slow-report', outcome: 'ok' })).toBe(1);
    expect(
      histogramCount(all, 'kindgi_tool_call_duration_seconds', { tool: 'acme.format-citation' }),
    ).toBeGreaterThanOrEqual(2);
    expect(sample(all, 'kindgi_runs_total', { status: 'queued' })).toBe(1);
    expect(sample(all, 'kindgi_runs_total', { status: 'running' })).toBe(1);
    expect(sample(all, 'kindgi_runs_total', { status: 'completed' })).toBe(1);
    expect(sample(all, 'kindgi_idempotency_replays_total')).toBe(1);
    expect(sample(all, 'kindgi_sse_streams_open')).toBe(0);
    expect(sample(all, 'kindgi_pack_children_serving', { pack: 'acme' })).toBe(1);
    expect(sample(all, 'kindgi_pack_swaps_total', { pack: 'acme' })).toBe(1);
    expect(sample(all, 'kindgi_pack_restarts_total', { pack: 'acme' })).toBe(0);
    expect(sample(all, 'kindgi_pack_held_calls', { pack: 'acme' })).toBe(0);
    expect(sample(all, 'kindgi_pack_calls_held_total', { pack: 'acme' })).toBe(0);
    expect(all.families.has('kindgi_server_process_cpu_seconds_total')).toBe(true);

    // Bounded labels: route templates only, never a raw path, a key, a run id or a tenant id.
    const labelValues = [...all.families.values()].flatMap((family) =>
      family.metrics.flatMap((metric) => Object.values(metric.labels ?? {})),
    );
    for (const leaked of ['secret-key-name', runId, 'tenant-metrics', S3.bucket, 'acme.format-citation/invoke']) {
      expect(labelValues.filter((value) => value.includes(leaked))).toEqual([]);
    }
  }, 240_000);
});
