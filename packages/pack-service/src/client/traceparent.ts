import { context, isSpanContextValid, TraceFlags, trace } from '@opentelemetry/api';
import { callTrace } from '../service/trace.js';

/**
 * The `traceparent` a call sends when its caller gave none: the active OpenTelemetry span, else a new
 * unsampled trace, so the service's records of one call always share the id the caller can log.
 */
export function outboundTraceparent(given: string | undefined): string {
  if (given) return given;
  const span = trace.getSpanContext(context.active());
  if (span && isSpanContextValid(span)) {
    return `00-${span.traceId}-${span.spanId}-${span.traceFlags & TraceFlags.SAMPLED ? '01' : '00'}`;
  }
  const fresh = callTrace(undefined);
  return `00-${fresh.traceId}-${fresh.spanId}-00`;
}
