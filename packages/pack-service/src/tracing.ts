import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

/**
 * The one OpenTelemetry bootstrap of every Kindgi process (the server, the pack service): registers a
 * tracer provider (AsyncLocalStorage context, W3C trace context propagation) with an OTLP/HTTP exporter
 * configured by the standard `OTEL_EXPORTER_OTLP_*` variables. `serviceName` is the default
 * `service.name`; `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES` override it. A subpath of its own
 * (`@kindgi/pack-service/tracing`), so a process loads the SDK only when `tracingRequested` says so.
 * Returns the provider's shutdown, which exports what is still buffered and never rejects.
 */
export function startProcessTracing(serviceName: string): () => Promise<void> {
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': serviceName }))
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new NodeTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  provider.register();
  return () => provider.shutdown().catch(() => undefined);
}
