import { tracingRequested } from '@kindgi/protocol';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

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
 */
export function startTracing(env: NodeJS.ProcessEnv = process.env): ServerTracing {
  if (!tracingRequested(env)) return { enabled: false, shutdown: async () => undefined };
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': 'kindgi-server' }))
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new NodeTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  provider.register();
  return {
    enabled: true,
    shutdown: () => provider.shutdown().catch(() => undefined),
  };
}
