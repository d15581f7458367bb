/// <reference path="../../server/tests/parse-prometheus-text-format.d.ts" />
import parsePrometheusTextFormat, { type PrometheusFamily } from 'parse-prometheus-text-format';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { basicIndexPath, call, invokeBody, TOKEN } from './pack-helpers.js';
import { killAll, listeningUrl, mainJs, spawnService } from './process-helpers.js';

const METRICS_TOKEN = 'metrics-token-0123456789';
const args = ['--index', basicIndexPath, '--host', '127.0.0.1'];
const env = {
  KINDGI_PACK_SERVICE_TOKEN: TOKEN,
  PORT: '0',
  FIXTURE_REQUIRED: 'set',
  KINDGI_LOG_FORMAT: 'json',
  KINDGI_PACK_SERVICE_METRICS: 'on',
  KINDGI_PACK_SERVICE_METRICS_TOKEN: METRICS_TOKEN,
  KINDGI_PACK_SERVICE_MAX_CONCURRENCY: '1',
};

beforeAll(async () => {
  const { existsSync } = await import('node:fs');
  if (!existsSync(mainJs)) throw new Error('Build first: pnpm --filter @kindgi/pack-service build');
});
afterEach(killAll);

type Families = Map<string, PrometheusFamily> & { text: string };

async function scrape(url: string): Promise<Families> {
  const response = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
  const text = await response.text();
  const families = new Map(parsePrometheusTextFormat(text).map((family) => [family.name, family]));
  return Object.assign(families, { text });
}

/**
 * A histogram's `_count` for one label set. The parser keeps a histogram's buckets but drops its
 * labels (prom-client writes `le` first), so the count is read from the text.
 */
function histogramCount(families: Families, name: string, labels: string): string | undefined {
  expect(families.get(name)?.type).toBe('HISTOGRAM');
  const line = families.text.split('\n').find((row) => row.startsWith(`${name}_count{${labels}}`));
  return line?.split(' ')[1];
}

function sample(families: Map<string, PrometheusFamily>, name: string, labels: Record<string, string> = {}) {
  return families
    .get(name)
    ?.metrics.find((metric) => Object.entries(labels).every(([k, v]) => metric.labels?.[k] === v));
}

describe('pack-service process: Prometheus metrics', () => {
  it('asks for the bearer token, then counts calls, latency, in-flight, rejections and the process defaults', async () => {
    const svc = spawnService(args, env);
    const url = await listeningUrl(svc);
    expect((await fetch(`${url}/metrics`)).status).toBe(401);
    const wrong = await fetch(`${url}/metrics`, { headers: { authorization: 'Bearer nope' } });
    expect(wrong.status).toBe(401);
    // The metrics token, like the pack token, never reaches pack code's environment.
    const seen = await call(url, '/v1/invoke', {
      body: invokeBody('fixture.env', { name: 'KINDGI_PACK_SERVICE_METRICS_TOKEN' }),
    });
    expect(seen.json).toMatchObject({ kind: 'result', output: { value: null } });

    for (const message of ['a', 'b', 'c']) {
      expect((await call(url, '/v1/invoke', { body: invokeBody('fixture.echo', { message }) })).status).toBe(200);
    }
    await call(url, '/v1/invoke', { body: invokeBody('fixture.echo', {}) });
    await call(url, '/v1/invoke', { body: invokeBody('caller.named-this', {}) });

    // One call held in flight at a cap of 1: the next is rejected as overloaded.
    const held = new AbortController();
    const holding = fetch(`${url}/v1/invoke`, {
      method: 'POST',
      headers: { 'kindgi-pack-token': TOKEN, 'content-type': 'application/json' },
      body: invokeBody('fixture.wait', {}),
      signal: held.signal,
    }).catch(() => undefined);
    let families = await scrape(url);
    while (sample(families, 'kindgi_pack_calls_in_flight')?.value !== '1') families = await scrape(url);
    expect((await call(url, '/v1/invoke', { body: invokeBody('fixture.echo', { message: 'x' }) })).status).toBe(503);
    held.abort();
    await holding;
    await svc.waitForRecord((r) => r.event === 'call' && r.toolId === 'fixture.wait' && r.outcome === 'cancelled');

    families = await scrape(url);
    const tool = { target: 'tool', id: 'fixture.echo' };
    expect(sample(families, 'kindgi_pack_calls_total', { ...tool, outcome: 'ok' })?.value).toBe('3');
    expect(sample(families, 'kindgi_pack_calls_total', { ...tool, outcome: 'input-validation-failed' })?.value).toBe(
      '1',
    );
    expect(sample(families, 'kindgi_pack_calls_total', { id: 'fixture.wait', outcome: 'cancelled' })?.value).toBe('1');
    // A tool the pack doesn't have is never a label: the caller chose its name.
    expect(sample(families, 'kindgi_pack_calls_total', { id: '', outcome: 'tool-not-in-pack' })?.value).toBe('1');
    expect(JSON.stringify([...families.values()])).not.toContain('caller.named-this');
    const latency = histogramCount(families, 'kindgi_pack_call_duration_seconds', 'target="tool",id="fixture.echo"');
    expect(latency).toBe('4');
    expect(sample(families, 'kindgi_pack_calls_rejected_total', { reason: 'overloaded' })?.value).toBe('1');
    expect(sample(families, 'kindgi_pack_calls_in_flight')?.value).toBe('0');
    const defaults = ['nodejs_eventloop_lag_seconds', 'process_cpu_seconds_total', 'process_resident_memory_bytes'];
    for (const name of defaults.map((n) => `kindgi_pack_${n}`)) {
      expect(families.has(name), name).toBe(true);
    }
  }, 60_000);

  it('serves no metrics route unless KINDGI_PACK_SERVICE_METRICS=on', async () => {
    const { KINDGI_PACK_SERVICE_METRICS: _on, ...off } = env;
    const svc = spawnService(args, off);
    const url = await listeningUrl(svc);
    const response = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(response.status).toBe(404);
  }, 60_000);
});
