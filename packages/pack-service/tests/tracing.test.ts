import { type OtlpReceiver, startOtlpReceiver } from '@kindgi/test-services/otlp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { basicIndexPath, call, checkBody, invokeBody, TOKEN } from './pack-helpers.js';
import { killAll, listeningUrl, spawnService } from './process-helpers.js';

// The spans the service process exports land in this receiver.
let receiver: OtlpReceiver;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
});
afterEach(killAll);
afterAll(() => receiver.close());

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';

describe('pack-service process: OpenTelemetry spans from OTEL_* variables', () => {
  it('exports a runHandler / runCheck span per call under the traceparent, named by the call record', async () => {
    const svc = spawnService(['--index', basicIndexPath, '--host', '127.0.0.1'], {
      KINDGI_PACK_SERVICE_TOKEN: TOKEN,
      PORT: '0',
      FIXTURE_REQUIRED: 'set',
      KINDGI_LOG_FORMAT: 'json',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '20',
    });
    const url = await listeningUrl(svc);
    const traceparent = `00-${TRACE_ID}-${CALLER_SPAN}-01`;
    const tool = await call(url, '/v1/invoke', {
      body: invokeBody('fixture.echo', { message: 'hi' }),
      headers: { traceparent },
    });
    expect(tool.json).toMatchObject({ kind: 'result' });
    const check = await call(url, '/v1/invoke', { body: checkBody('fixture.throws', {}), headers: { traceparent } });
    expect(check.json).toMatchObject({ kind: 'error', code: 'handler-throw' });

    const handler = await receiver.spanNamed('runHandler fixture.echo');
    expect(handler).toMatchObject({ traceId: TRACE_ID, parentSpanId: CALLER_SPAN, kind: 2 });
    expect(handler.attributes).toEqual(
      expect.arrayContaining([
        { key: 'kindgi.tool.id', value: { stringValue: 'fixture.echo' } },
        { key: 'kindgi.outcome', value: { stringValue: 'ok' } },
      ]),
    );
    const checkSpan = await receiver.spanNamed('runCheck fixture.throws');
    expect(checkSpan).toMatchObject({ traceId: TRACE_ID, parentSpanId: CALLER_SPAN });
    expect(checkSpan.attributes).toEqual(
      expect.arrayContaining([{ key: 'kindgi.outcome', value: { stringValue: 'handler-throw' } }]),
    );
    const record = await svc.waitForRecord((r) => r.event === 'call' && r.toolId === 'fixture.echo');
    expect(record).toMatchObject({ traceId: TRACE_ID, spanId: handler.spanId, parentSpanId: CALLER_SPAN });
  }, 60_000);
});
