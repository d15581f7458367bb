import { startProcessTracing } from '@kindgi/pack-service/tracing';
import { tracingRequested } from '@kindgi/protocol';

/** The process's OpenTelemetry tracing, when the standard `OTEL_*` variables turned it on. */
export interface ServerTracing {
  readonly enabled: boolean;
  /** Exports the spans still buffered, then stops (call once, at exit). */
  shutdown(): Promise<void>;
}

// The rule is @kindgi/protocol's, shared with the pack service; re-exported as part of this package's surface.
export { tracingRequested };

/**
 * Registers the tracer provider (AsyncLocalStorage context, W3C trace context propagation) with an OTLP/HTTP
 * exporter configured by the `OTEL_EXPORTER_OTLP_*` variables, when `tracingRequested`. Off by default.
 * The bootstrap is the pack service's (`@kindgi/pack-service/tracing`), so both processes trace alike.
 */
export function startTracing(env: NodeJS.ProcessEnv = process.env): ServerTracing {
  if (!tracingRequested(env)) return { enabled: false, shutdown: async () => undefined };
  return { enabled: true, shutdown: startProcessTracing('kindgi-server') };
}
