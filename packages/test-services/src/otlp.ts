import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as OTLP/HTTP JSON carries it (the fields the tests read). */
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: Record<string, unknown> }[];
}

/** A running OTLP/HTTP (JSON) trace receiver on 127.0.0.1. */
export interface OtlpReceiver {
  /** Every span received so far, in arrival order. */
  readonly spans: readonly OtlpSpan[];
  /** `http://127.0.0.1:<port>/v1/traces`, for `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`. */
  readonly url: string;
  /** Resolves once at least `count` spans have arrived. */
  waitFor(count: number): Promise<void>;
  /** Resolves with the first span named `name` (of trace `traceId`, when given) once it has arrived. */
  spanNamed(name: string, traceId?: string): Promise<OtlpSpan>;
  /** Stops listening. */
  close(): Promise<void>;
}

type OtlpBody = { resourceSpans?: { scopeSpans?: { spans?: OtlpSpan[] }[] }[] };

/**
 * Starts a receiver the process under test exports its spans to (`OTEL_EXPORTER_OTLP_PROTOCOL=http/json`).
 * Spans arrive in batches and in any order, so tests wait for the spans they name, never for a timer.
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: OtlpSpan[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpBody;
      for (const resource of body.resourceSpans ?? [])
        for (const scope of resource.scopeSpans ?? []) spans.push(...(scope.spans ?? []));
      for (const waiter of [...waiters]) {
        if (spans.length < waiter.count) continue;
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const waitFor = (count: number): Promise<void> =>
    spans.length >= count ? Promise.resolve() : new Promise((resolve) => waiters.push({ count, resolve }));
  return {
    spans,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`,
    waitFor,
    async spanNamed(name, traceId) {
      for (;;) {
        const found = spans.find((span) => span.name === name && (traceId === undefined || span.traceId === traceId));
        if (found) return found;
        await waitFor(spans.length + 1);
      }
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
