import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

/**
 * Registers an OpenTelemetry tracer provider (W3C trace context, OTLP/HTTP exporter configured by the
 * `OTEL_EXPORTER_OTLP_*` variables) for the pack-service process. Loaded by the entry only when the
 * environment asks for traces, so the library and a service without tracing never load the SDK.
 * Returns the provider's shutdown (exports what is buffered).
 */
export function startPackTracing(): () => Promise<void> {
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': 'kindgi-pack-service' }))
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new NodeTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  provider.register();
  return () => provider.shutdown().catch(() => undefined);
}
