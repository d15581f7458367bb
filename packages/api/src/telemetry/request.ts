import { performance } from 'node:perf_hooks';
import type { HttpSurface, TelemetryBinding } from '@kindgi/bindings';
import { mcpMethodOf } from '@kindgi/mcp';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes, routePath } from 'hono/route';
import { apiTracer, inboundContext, runInContext } from './trace-context.js';

/** What the telemetry middleware reports to, and which requests it leaves out. */
export interface TelemetryMiddlewareOptions {
  telemetry?: TelemetryBinding;
  /** A path left out entirely (the metrics route: scrapes are neither traced nor counted). */
  skipPath?: string;
}

// The S3 subresources that pick an operation; anything else keeps the plain object or bucket template.
const S3_MARKERS = ['uploads', 'uploadId', 'delete', 'list-type'];

/**
 * A bounded template for an S3 request: bucket and key become placeholders, only operation markers stay.
 * The mount point comes from the matched route (`/s3/*`, `/prefix/s3/*`, or `*` at the root).
 */
function s3Route(c: Context): string {
  const basePath = routePath(c, -1).replace(/\/?\*$/, '');
  const rest = c.req.path.slice(basePath.length).replace(/^\/+/, '');
  const slash = rest.indexOf('/');
  const base =
    rest === ''
      ? `${basePath}/`
      : slash < 0 || slash === rest.length - 1
        ? `${basePath}/:bucket`
        : `${basePath}/:bucket/:key`;
  const query = c.req.url.indexOf('?');
  if (query < 0) return base;
  const params = new URLSearchParams(c.req.url.slice(query + 1));
  const marker = S3_MARKERS.find((name) => params.has(name));
  return marker ? `${base}?${marker}` : base;
}

function restRoute(c: Context): string {
  const last = matchedRoutes(c).at(-1);
  // Only middleware matched (a 404, a trailing-slash redirect): the raw path must not become a label.
  return last === undefined || last.method === 'ALL' ? 'unmatched' : last.path;
}

function declaredLength(headers: Headers): number | undefined {
  const raw = headers.get('content-length');
  if (raw === null) return undefined;
  const value = Number(raw);
  return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

/** Wraps an SSE body so the open-streams gauge drops when it ends, errors or the client leaves. */
function trackStream(c: Context, telemetry: TelemetryBinding): void {
  const body = c.res.body;
  if (body === null) return;
  const closed = telemetry.sseStreamOpened();
  let open = true;
  const finish = () => {
    if (open) {
      open = false;
      closed();
    }
  };
  const reader = body.getReader();
  const tracked = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const chunk = await reader.read();
        if (chunk.done) {
          finish();
          controller.close();
        } else controller.enqueue(chunk.value);
      } catch (cause) {
        finish();
        controller.error(cause);
      }
    },
    cancel(reason) {
      finish();
      return reader.cancel(reason);
    },
  });
  c.res = new Response(tracked, { status: c.res.status, headers: c.res.headers });
}

/**
 * One span per request (child of an inbound `traceparent`) and one `httpRequest` event per answer, labelled
 * by route template, never by raw path. Mounted first, so it sees every answer, errors included.
 */
export function telemetryMiddleware(options: TelemetryMiddlewareOptions): MiddlewareHandler {
  const { telemetry, skipPath } = options;
  return async (c, next) => {
    if (c.req.path === skipPath) return next();
    const started = performance.now();
    const method = c.req.method.toUpperCase();
    const parent = inboundContext(c.req.raw.headers);
    const span = apiTracer().startSpan(method, { kind: SpanKind.SERVER }, parent);
    try {
      await runInContext(trace.setSpan(parent, span), async () => {
        await next();
      });
    } finally {
      // Every S3 answer carries `x-amz-request-id` (errors too), whatever the mount point; the MCP face notes
      // the JSON-RPC method of what it served, which labels the request in place of the HTTP method.
      const mcpMethod = mcpMethodOf(c);
      const surface: HttpSurface = c.res.headers.has('x-amz-request-id') ? 's3' : mcpMethod ? 'mcp' : 'v1';
      const route = surface === 's3' ? s3Route(c) : restRoute(c);
      const status = c.res.status;
      span.updateName(mcpMethod ? `${method} ${route} ${mcpMethod}` : `${method} ${route}`);
      span.setAttributes({
        'http.request.method': method,
        'http.route': route,
        'http.response.status_code': status,
        'kindgi.surface': surface,
        ...(mcpMethod ? { 'rpc.system': 'jsonrpc', 'rpc.method': mcpMethod } : {}),
      });
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
      if (telemetry) {
        const event: Parameters<TelemetryBinding['httpRequest']>[0] = {
          surface,
          route,
          method: mcpMethod ?? method,
          status,
          durationMs: performance.now() - started,
        };
        const bytesIn = declaredLength(c.req.raw.headers);
        const bytesOut = declaredLength(c.res.headers);
        if (bytesIn !== undefined) event.bytesIn = bytesIn;
        if (bytesOut !== undefined) event.bytesOut = bytesOut;
        if (c.res.headers.get('x-idempotent-replay') === 'true') event.replayed = true;
        telemetry.httpRequest(event);
        if (c.res.headers.get('content-type')?.startsWith('text/event-stream')) trackStream(c, telemetry);
      }
    }
  };
}
