import { AsyncLocalStorage } from 'node:async_hooks';
import { parseTraceparent, parseTracestate } from '@kindgi/protocol';
import {
  type Context,
  context,
  createContextKey,
  propagation,
  ROOT_CONTEXT,
  type Tracer,
  trace,
} from '@opentelemetry/api';

// The W3C codec is @kindgi/protocol's, shared with the pack service; re-exported as part of this surface.
export { formatTraceparent, parseTraceparent } from '@kindgi/protocol';

/** The tracer every span of the API is made with (a no-op until the host registers an OpenTelemetry SDK). */
export const apiTracer = (): Tracer => trace.getTracer('@kindgi/api');

const PROBE = createContextKey('kindgi.context-probe');

// Used only when no OpenTelemetry context manager is registered and a request brought a traceparent, so a
// deployment without an SDK still forwards its caller's trace to the pack (and pays for the async hooks
// only then).
const fallback = new AsyncLocalStorage<Context>();

/** The request's parent context: what the registered propagator extracts, else the header read directly. */
export function inboundContext(headers: Headers): Context {
  const extracted = propagation.extract(ROOT_CONTEXT, headers, {
    get: (carrier, key) => carrier.get(key) ?? undefined,
    keys: (carrier) => [...carrier.keys()],
  });
  if (trace.getSpanContext(extracted)) return extracted;
  const remote = parseTraceparent(headers.get('traceparent') ?? undefined);
  if (!remote) return extracted;
  const traceState = parseTracestate(headers.get('tracestate') ?? undefined);
  return trace.setSpanContext(extracted, traceState ? { ...remote, traceState } : remote);
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
