/**
 * True when the environment asks for traces: an OTLP endpoint or `OTEL_TRACES_EXPORTER=otlp`, and neither
 * `OTEL_SDK_DISABLED=true` nor `OTEL_TRACES_EXPORTER=none`. One rule for every Kindgi process (the server,
 * the pack service), so one set of standard `OTEL_*` variables turns tracing on or off everywhere alike.
 *
 * @example
 * tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }); // true
 * tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }); // false
 */
export function tracingRequested(env: Readonly<Record<string, string | undefined>>): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '').split(',').map((name) => name.trim().toLowerCase());
  if (exporters.includes('none')) return false;
  return (
    exporters.includes('otlp') || Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
  );
}
