import {
  context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import type { CallTrace } from './trace.js';

/** The tracer of the pack service and its supervisor; the global provider decides whether it records. */
export function packTracer(): Tracer {
  return trace.getTracer('@kindgi/pack-service');
}

/**
 * Starts a span under a W3C `traceparent` (the global propagator reads it). The span is returned only
 * when it records: with no SDK registered nothing is allocated past the no-op span.
 */
export function startSpanUnder(
  name: string,
  kind: SpanKind,
  traceparent: string | undefined,
  attributes: Record<string, string>,
): Span | undefined {
  const parent = traceparent === undefined ? ROOT_CONTEXT : propagation.extract(ROOT_CONTEXT, { traceparent });
  const span = packTracer().startSpan(name, { kind, attributes }, parent);
  return span.isRecording() ? span : undefined;
}

/** The `traceparent` naming `span`, to send on to the next hop. */
export function traceparentOf(span: Span): string | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(trace.setSpan(ROOT_CONTEXT, span), carrier);
  return carrier.traceparent;
}

/** A call's span for `runHandler` / `runCheck`, and the call trace its records carry (the span's ids). */
export function startCallSpan(
  target: 'tool' | 'check',
  id: string,
  traceparent: string | undefined,
  fallback: CallTrace,
): CallTrace {
  const name = target === 'tool' ? `runHandler ${id}` : `runCheck ${id}`;
  const attribute = target === 'tool' ? 'kindgi.tool.id' : 'kindgi.check.id';
  const span = startSpanUnder(name, SpanKind.SERVER, traceparent, { [attribute]: id });
  if (span === undefined) return fallback;
  const ids = span.spanContext();
  return { ...fallback, traceId: ids.traceId, spanId: ids.spanId, span };
}

/** Ends a call's span, if it has one, with its outcome. */
export function endCallSpan(callTrace: CallTrace, outcome: string): void {
  if (callTrace.span !== undefined) endSpan(callTrace.span, outcome);
}

/** Ends a span with `kindgi.outcome` (anything but `ok` sets the span's status to error). */
export function endSpan(span: Span, outcome: string): void {
  span.setAttribute('kindgi.outcome', outcome);
  if (outcome !== 'ok') span.setStatus({ code: SpanStatusCode.ERROR, message: outcome });
  span.end();
}

/** Runs `fn` with the call's span active, so pack code's own spans nest under it. */
export function withCallSpan<T>(callTrace: CallTrace, fn: () => T): T {
  const span = callTrace.span;
  return span === undefined ? fn() : context.with(trace.setSpan(context.active(), span), fn);
}
