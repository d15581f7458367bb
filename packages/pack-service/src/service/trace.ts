import { randomFillSync } from 'node:crypto';
import { parseTraceparent } from '@kindgi/protocol';
import type { Span } from '@opentelemetry/api';

/** The ids a call record carries: the caller's trace and a fresh span for this call. */
export interface CallTrace {
  traceId: string;
  spanId: string;
  /** The caller's span, when a valid `traceparent` named one. */
  parentSpanId?: string;
  /** The call's OpenTelemetry span, when tracing is on (its ids are then `traceId` / `spanId`). */
  span?: Span;
}

// Ids are cut from a pooled buffer's hex text, refilled 4 KiB at a time: one crypto call and one hex
// conversion per ~170 calls instead of two of each per call, on the hot path of every invoke.
const pool = Buffer.alloc(4096);
let poolHex = '';
let offset = pool.length;

function randomHex(bytes: number): string {
  if (offset + bytes > pool.length) {
    randomFillSync(pool);
    poolHex = pool.toString('hex');
    offset = 0;
  }
  const hex = poolHex.slice(offset * 2, (offset + bytes) * 2);
  offset += bytes;
  return hex;
}

/**
 * Reads a W3C `traceparent` (the codec of @kindgi/protocol): a valid one gives the trace id and the
 * parent span; anything else starts a new trace. The call always gets a fresh span id.
 */
export function callTrace(traceparent: string | string[] | undefined): CallTrace {
  const spanId = randomHex(8);
  const parent = parseTraceparent(traceparent);
  if (parent) return { traceId: parent.traceId, spanId, parentSpanId: parent.spanId };
  return { traceId: randomHex(16), spanId };
}
