import type { HttpRequestEvent, RunHandlerBinding, RunStatus, TelemetryBinding, ToolCallEvent } from '@kindgi/bindings';
import { ok } from '@kindgi/protocol';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { AUTH_A, jsonPost, makeApp } from './helpers.js';

const METRICS_TOKEN = 'embedded-metrics-token-0123456789';
const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

/** A telemetry binding that keeps every event (what a metrics backend would count). */
function recordingTelemetry() {
  const events = { http: [] as HttpRequestEvent[], tools: [] as ToolCallEvent[], runs: [] as RunStatus[], open: 0 };
  const binding: TelemetryBinding = {
    httpRequest: (event) => void events.http.push(event),
    toolCall: (event) => void events.tools.push(event),
    runStatus: (status) => void events.runs.push(status),
    sseStreamOpened() {
      events.open++;
      return () => {
        events.open--;
      };
    },
    scrape: async () => ({ contentType: 'text/plain; version=0.0.4; charset=utf-8', body: 'kindgi_embedded 1\n' }),
  };
  return { events, binding };
}

describe('createApp with a telemetry binding (an embedded app)', () => {
  it('serves the scrape at the metrics path behind its bearer token, and does not count scrapes', async () => {
    const { events, binding } = recordingTelemetry();
    const { app } = makeApp({ telemetry: binding, metrics: { token: METRICS_TOKEN } });
    expect((await app.request('/metrics')).status).toBe(401);
    expect((await app.request('/metrics', { headers: AUTH_A })).status).toBe(401);
    const scraped = await app.request('/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(scraped.status).toBe(200);
    expect(scraped.headers.get('content-type')).toContain('text/plain');
    expect(await scraped.text()).toBe('kindgi_embedded 1\n');
    expect(events.http).toEqual([]);
  });

  it('mounts no metrics route without `metrics`', async () => {
    const { binding } = recordingTelemetry();
    const { app } = makeApp({ telemetry: binding });
    expect((await app.request('/metrics')).status).toBe(404);
  });

  it('reports requests by route template, tool calls by id and outcome', async () => {
    const { events, binding } = recordingTelemetry();
    const { app } = makeApp({ telemetry: binding });
    expect((await app.request('/v1/tools/echo/invoke', jsonPost({ input: { text: 'hi' } }))).status).toBe(200);
    expect((await app.request('/v1/tools/throws/invoke', jsonPost({ input: {} }))).status).toBe(502);
    expect((await app.request('/v1/no/such/route', { headers: AUTH_A })).status).toBe(404);
    expect(events.http.map(({ route, method, status, surface }) => ({ route, method, status, surface }))).toEqual([
      { route: '/v1/tools/:toolId/invoke', method: 'POST', status: 200, surface: 'v1' },
      { route: '/v1/tools/:toolId/invoke', method: 'POST', status: 502, surface: 'v1' },
      { route: 'unmatched', method: 'GET', status: 404, surface: 'v1' },
    ]);
    expect(events.tools.map(({ toolId, outcome }) => ({ toolId, outcome }))).toEqual([
      { toolId: 'echo', outcome: 'ok' },
      { toolId: 'throws', outcome: 'handler-throw' },
    ]);
  });

  it('names S3 answers by a bucket/key template, at any mount point', async () => {
    const { events, binding } = recordingTelemetry();
    const s3Credentials = { resolve: async () => null };
    const { app } = makeApp({ telemetry: binding, s3Credentials });
    const host = new Hono();
    host.route('/kindgi', app);
    // Unsigned: refused, but still an S3 answer (XML error with x-amz-request-id).
    expect((await app.request('/s3/reports/2026/a.bin', { method: 'PUT', body: 'x' })).status).toBe(403);
    expect((await host.request('/kindgi/s3/reports/a.bin?uploads', { method: 'POST' })).status).toBe(403);
    expect((await host.request('/kindgi/v1/tools/echo', { headers: AUTH_A })).status).toBe(200);
    expect(events.http.map(({ route, surface, method }) => ({ route, surface, method }))).toEqual([
      { route: '/s3/:bucket/:key', surface: 's3', method: 'PUT' },
      { route: '/kindgi/s3/:bucket/:key?uploads', surface: 's3', method: 'POST' },
      { route: '/kindgi/v1/tools/:toolId', surface: 'v1', method: 'GET' },
    ]);
  });

  it('reports run transitions and the SSE stream while it is open', async () => {
    const { events, binding } = recordingTelemetry();
    const { app } = makeApp({ telemetry: binding });
    const started = await app.request('/v1/runs', jsonPost({ toolId: 'echo', input: { text: 'hi' } }));
    expect(started.status).toBe(202);
    const { runId } = (await started.json()) as { runId: string };
    const stream = await app.request(`/v1/runs/${runId}/stream`, { headers: AUTH_A });
    expect(events.open).toBe(1);
    expect(await stream.text()).toContain('run.completed');
    expect(events.open).toBe(0);
    expect(events.runs).toEqual(['queued', 'running', 'completed']);
  });

  it('forwards an inbound traceparent to the pack call without any OpenTelemetry SDK', async () => {
    const sent: (string | undefined)[] = [];
    const runHandler: RunHandlerBinding = async (call) => {
      sent.push(call.traceparent);
      return ok({ v: 2, kind: 'result', output: { text: 'hi' } });
    };
    const { app } = makeApp({ runHandler });
    const traceparent = `00-${TRACE}-00f067aa0ba902b7-01`;
    await app.request('/v1/tools/echo/invoke', jsonPost({ input: { text: 'hi' } }, { ...AUTH_A, traceparent }));
    await app.request('/v1/tools/echo/invoke', jsonPost({ input: { text: 'hi' } }));
    expect(sent).toEqual([traceparent, undefined]);
  });
});
