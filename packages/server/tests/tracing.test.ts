import { join } from 'node:path';
import { type OtlpReceiver, type OtlpSpan, startOtlpReceiver } from '@kindgi/test-services/otlp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cleanupTempDirs,
  type LogRecord,
  makeTempDir,
  type RunningServer,
  startServer,
  stopAllServers,
  writeConfig,
} from './harness.js';
import { api } from './http.js';

const TOKEN = 'tracing-test-api-token-0123456789';
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const CITATION = { input: { source: 'Brown v. Board', page: 483 } };

/** The pack service's `call` record for a tool, as the server relays it. */
function packCallRecord(record: LogRecord, toolId: string): Record<string, unknown> | undefined {
  const inner = record.record as Record<string, unknown> | undefined;
  return record.event === 'pack-log' && inner?.event === 'call' && inner.toolId === toolId ? inner : undefined;
}

/**
 * The first span named `name` among those that arrived after the first `from`. The server and the pack
 * service export in batches of their own, so which spans arrive first is chance: wait for the one named.
 */
async function spanSince(receiver: OtlpReceiver, from: number, name: string): Promise<OtlpSpan> {
  for (;;) {
    const found = receiver.spans.slice(from).find((span) => span.name === name);
    if (found) return found;
    await receiver.waitFor(receiver.spans.length + 1);
  }
}

function config(label: string): string {
  const root = makeTempDir(label);
  return writeConfig(root, join(root, 'data'), { tokens: [{ token: TOKEN, tenantId: 'tenant-traces' }] });
}

describe('traces across the REST route, the tool call and the pack service (dist/main.js as a process)', () => {
  let receiver: OtlpReceiver;
  let traced: RunningServer;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    traced = await startServer(config('traces'), {
      env: {
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_SERVICE_NAME: 'kindgi-server-under-test',
        // Exported soon after each span ends, so the test waits for spans rather than for a timer.
        OTEL_BSP_SCHEDULE_DELAY: '20',
      },
    });
  }, 120_000);

  afterAll(async () => {
    await stopAllServers();
    await receiver?.close();
    cleanupTempDirs();
  });

  it('joins an inbound traceparent: REST span → tool call span → supervisor hop → runHandler span', async () => {
    const reply = await api(traced.url, TOKEN, 'POST', '/v1/tools/acme.format-citation/invoke', CITATION, {
      traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01`,
    });
    expect(reply.status).toBe(200);
    const rest = await receiver.spanNamed('POST /v1/tools/:toolId/invoke', TRACE_ID);
    const tool = await receiver.spanNamed('tool acme.format-citation', TRACE_ID);
    expect(rest).toMatchObject({ parentSpanId: CALLER_SPAN, kind: 2 });
    expect(tool).toMatchObject({ parentSpanId: rest.spanId, kind: 3 });
    const call = await traced.waitFor(
      (record) => packCallRecord(record, 'acme.format-citation') !== undefined,
      'the call record',
    );
    // The supervisor (in the server process) relays under a span of its own; the pack service process
    // (its SDK started from the OTEL_* variables the server passed on) runs the handler under the next.
    const hop = await receiver.spanNamed('relay /v1/invoke', TRACE_ID);
    const handler = await receiver.spanNamed('runHandler acme.format-citation', TRACE_ID);
    expect(hop).toMatchObject({ parentSpanId: tool.spanId, kind: 2 });
    expect(handler).toMatchObject({ parentSpanId: hop.spanId, kind: 2 });
    expect(handler.attributes).toEqual(
      expect.arrayContaining([
        { key: 'kindgi.tool.id', value: { stringValue: 'acme.format-citation' } },
        { key: 'kindgi.outcome', value: { stringValue: 'ok' } },
      ]),
    );
    // The pack's call record names the handler's span, so logs and the trace meet.
    expect(packCallRecord(call, 'acme.format-citation')).toMatchObject({
      traceId: TRACE_ID,
      spanId: handler.spanId,
      outcome: 'ok',
    });
  }, 120_000);

  it('starts a trace of its own when the caller sends none', async () => {
    const before = receiver.spans.length;
    const reply = await api(traced.url, TOKEN, 'POST', '/v1/tools/acme.format-citation/invoke', CITATION);
    expect(reply.status).toBe(200);
    const rest = await spanSince(receiver, before, 'POST /v1/tools/:toolId/invoke');
    const tool = await spanSince(receiver, before, 'tool acme.format-citation');
    expect(rest.traceId).not.toBe(TRACE_ID);
    expect(rest.parentSpanId ?? '').toBe('');
    expect(tool).toMatchObject({ traceId: rest.traceId, parentSpanId: rest.spanId });
  }, 120_000);

  it('forwards the caller’s trace to the pack even with tracing off', async () => {
    const plain = await startServer(config('no-traces'));
    const otherTrace = 'a'.repeat(31) + 'b';
    const reply = await api(plain.url, TOKEN, 'POST', '/v1/tools/acme.format-citation/invoke', CITATION, {
      traceparent: `00-${otherTrace}-${CALLER_SPAN}-01`,
    });
    expect(reply.status).toBe(200);
    const call = await plain.waitFor(
      (record) => packCallRecord(record, 'acme.format-citation') !== undefined,
      'the call record',
    );
    expect(packCallRecord(call, 'acme.format-citation')).toMatchObject({ traceId: otherTrace });
  }, 120_000);
});
