import { performance } from 'node:perf_hooks';
import type { RunCheckBinding, RunHandlerBinding, TelemetryBinding } from '@kindgi/bindings';
import type { PackResponse, PackTransportError, Result } from '@kindgi/protocol';
import { context, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { apiTracer, currentContext, formatTraceparent } from './trace-context.js';

type Reply = Result<PackResponse, PackTransportError>;

/** `ok`, the pack's error code, or the transport's: a bounded label. */
function outcomeOf(reply: Reply): string {
  if (reply.kind === 'err') return reply.error.code;
  return reply.value.kind === 'error' ? reply.value.code : 'ok';
}

/**
 * Runs `call` under a client span named `name`, sending the span as the call's `traceparent` (the
 * caller's own, when it gave one, wins), and reports the outcome.
 */
async function traced(
  name: string,
  attributes: Record<string, string>,
  given: string | undefined,
  call: (traceparent: string | undefined) => Promise<Reply>,
): Promise<{ reply: Reply; outcome: string }> {
  const parent = currentContext();
  const span: Span = apiTracer().startSpan(name, { kind: SpanKind.CLIENT, attributes }, parent);
  try {
    // A no-op tracer's span carries its parent's context, so without an SDK this forwards the inbound one.
    const traceparent = given ?? formatTraceparent(span.spanContext());
    const reply = await context.with(trace.setSpan(parent, span), () => call(traceparent));
    const outcome = outcomeOf(reply);
    span.setAttribute('kindgi.outcome', outcome);
    if (outcome !== 'ok') span.setStatus({ code: SpanStatusCode.ERROR, message: outcome });
    return { reply, outcome };
  } finally {
    span.end();
  }
}

/** `runHandler` with a span and a `toolCall` event per call; never throws more than the binding does. */
export function instrumentRunHandler(runHandler: RunHandlerBinding, telemetry?: TelemetryBinding): RunHandlerBinding {
  return async (call) => {
    const started = performance.now();
    const { reply, outcome } = await traced(
      `tool ${call.tool.id}`,
      { 'kindgi.tool.id': call.tool.id },
      call.traceparent,
      (traceparent) => runHandler(traceparent === undefined ? call : { ...call, traceparent }),
    );
    telemetry?.toolCall({ toolId: call.tool.id, outcome, durationMs: performance.now() - started });
    return reply;
  };
}

/** `runCheck` with a span per check. */
export function instrumentRunCheck(runCheck: RunCheckBinding): RunCheckBinding {
  return async (call) => {
    const { reply } = await traced(
      `check ${call.check.id}`,
      { 'kindgi.check.id': call.check.id },
      call.traceparent,
      (traceparent) => runCheck(traceparent === undefined ? call : { ...call, traceparent }),
    );
    return reply;
  };
}
