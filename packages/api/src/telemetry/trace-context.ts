import { AsyncLocalStorage } from 'node:async_hooks';
import {
  type Context,
  context,
  createContextKey,
  isSpanContextValid,
  propagation,
  ROOT_CONTEXT,
  type SpanContext,
  TraceFlags,
  type Tracer,
  trace,
} from '@opentelemetry/api';

/** The tracer every span of the API is made with (a no-op until the host registers an OpenTelemetry SDK). */
export const apiTracer = (): Tracer => trace.getTracer('@kindgi/api');

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const PROBE = createContextKey('kindgi.context-probe');

// Used only when no OpenTelemetry context manager is registered and a request brought a traceparent, so a
// deployment without an SDK still forwards its caller's trace to the pack (and pays for the async hooks
// only then).
const fallback = new AsyncLocalStorage<Context>();

/** A W3C `traceparent` (version 00) as a remote span context, or undefined when it is not a valid one. */
export function parseTraceparent(value: string | undefined): SpanContext | undefined {
  const match = value === undefined ? null : TRACEPARENT.exec(value.trim().toLowerCase());
  if (!match) return undefined;
  const spanContext: SpanContext = {
    traceId: match[1] as string,
    spanId: match[2] as string,
    traceFlags: Number.parseInt(match[3] as string, 16) & TraceFlags.SAMPLED,
    isRemote: true,
  };
  return isSpanContextValid(spanContext) ? spanContext : undefined;
}

/** The `traceparent` naming `spanContext` as the parent, or undefined for an invalid one. */
export function formatTraceparent(spanContext: SpanContext | undefined): string | undefined {
  if (!spanContext || !isSpanContextValid(spanContext)) return undefined;
  const flags = spanContext.traceFlags & TraceFlags.SAMPLED ? '01' : '00';
  return `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`;
}

/** The request's parent context: what the registered propagator extracts, else the header read directly. */
export function inboundContext(headers: Headers): Context {
  const extracted = propagation.extract(ROOT_CONTEXT, headers, {
    get: (carrier, key) => carrier.get(key) ?? undefined,
    keys: (carrier) => [...carrier.keys()],
  });
  if (trace.getSpanContext(extracted)) return extracted;
  const remote = parseTraceparent(headers.get('traceparent') ?? undefined);
  return remote ? trace.setSpanContext(extracted, remote) : extracted;
}

function contextPropagates(): boolean {
  const probe = ROOT_CONTEXT.setValue(PROBE, true);
  return context.with(probe, () => context.active() === probe);
}

/** Runs `fn` with `ctx` active: through the registered context manager, else the fallback store. */
export function runInContext<T>(ctx: Context, fn: () => Promise<T>): Promise<T> {
  if (contextPropagates()) return context.with(ctx, fn);
  return trace.getSpanContext(ctx) ? fallback.run(ctx, fn) : fn();
}

/** The context a call made now belongs to (the request's span, or the caller's remote span). */
export function currentContext(): Context {
  return fallback.getStore() ?? context.active();
}
