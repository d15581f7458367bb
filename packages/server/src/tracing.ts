import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

/** The process's OpenTelemetry tracing, when the standard `OTEL_*` variables turned it on. */
export interface ServerTracing {
  readonly enabled: boolean;
  /** Exports the spans still buffered, then stops (call once, at exit). */
  shutdown(): Promise<void>;
}

/**
 * True when the environment asks for traces: an OTLP endpoint or `OTEL_TRACES_EXPORTER=otlp`, and neither
 * `OTEL_SDK_DISABLED=true` nor `OTEL_TRACES_EXPORTER=none`.
 */
export function tracingRequested(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '').split(',').map((name) => name.trim().toLowerCase());
  if (exporters.includes('none')) return false;
  return (
    exporters.includes('otlp') || Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
  );
}

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
