import { type SpanContext, TraceFlags, type TraceState } from '@opentelemetry/api';
import { parseTraceParent, TraceState as W3CTraceState } from '@opentelemetry/core';

/**
 * The longest `traceparent` read. Version 00 is 55 characters; a later version may append fields, and
 * this leaves room for them while keeping the parse bounded.
 */
export const MAX_TRACEPARENT_CHARS = 512;

/**
 * The longest `tracestate` read (all of a request's `tracestate` headers joined). W3C asks to propagate at
 * least 512 characters; past this the header is not read at all rather than cut mid-member.
 */
export const MAX_TRACESTATE_CHARS = 8192;

// W3C ids: lowercase hex, never all zero (`isValidTraceId` of @opentelemetry/api also takes uppercase).
const TRACE_ID = /^(?!0{32}$)[0-9a-f]{32}$/;
const SPAN_ID = /^(?!0{16}$)[0-9a-f]{16}$/;

/** A header as `node:http` or `Headers` gives it: one value, several, or none. */
export type HeaderValue = string | readonly string[] | undefined;

/**
 * A W3C `traceparent` as a remote span context, or undefined when it is not a valid one. The W3C Trace
 * Context rules (through `@opentelemetry/core`): lowercase hex; version `ff`, an all-zero trace id or
 * parent id is invalid; version 00 has exactly four fields, a later version is read by its first four.
 * Only the `sampled` flag is kept: the others are undefined in version 00 and are not passed on.
 *
 * @example
 * parseTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
 * // { traceId: '4bf9…4736', spanId: '00f067aa0ba902b7', traceFlags: 1, isRemote: true }
 */
export function parseTraceparent(value: HeaderValue): SpanContext | undefined {
  const text = typeof value === 'string' ? value : value?.[0];
  if (text === undefined || text.length > MAX_TRACEPARENT_CHARS) return undefined;
  const parsed = parseTraceParent(text);
  if (parsed === null) return undefined;
  return {
    traceId: parsed.traceId,
    spanId: parsed.spanId,
    traceFlags: parsed.traceFlags & TraceFlags.SAMPLED,
    isRemote: true,
  };
}

/**
 * The version 00 `traceparent` naming `span` as the parent, or undefined when its ids are not valid W3C
 * ids (lowercase hex, not all zero).
 */
export function formatTraceparent(
  span: Pick<SpanContext, 'traceId' | 'spanId' | 'traceFlags'> | undefined,
): string | undefined {
  if (span === undefined || !TRACE_ID.test(span.traceId) || !SPAN_ID.test(span.spanId)) return undefined;
  return `00-${span.traceId}-${span.spanId}-${span.traceFlags & TraceFlags.SAMPLED ? '01' : '00'}`;
}

/**
 * A request's W3C `tracestate` (several headers count as one list, in order), or undefined when there is
 * none or it is longer than `MAX_TRACESTATE_CHARS`. Members with an invalid key or value are dropped, as
 * are those past the 32nd, as the W3C rules allow.
 */
export function parseTracestate(value: HeaderValue): TraceState | undefined {
  const text = typeof value === 'string' ? value : value?.join(',');
  if (text === undefined || text.length > MAX_TRACESTATE_CHARS) return undefined;
  const state = new W3CTraceState(text);
  return formatTracestate(state) === undefined ? undefined : state;
}

/** The `tracestate` header value of `state`, or undefined when it has no member (send no header then). */
export function formatTracestate(state: TraceState | undefined): string | undefined {
  const text = state?.serialize();
  return text === undefined || text === '' ? undefined : text;
}
