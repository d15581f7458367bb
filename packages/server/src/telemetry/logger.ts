import { createLog } from '@kindgi/log';
import type { LogFields, LogLevel } from '@kindgi/protocol';
import { context, isSpanContextValid, trace } from '@opentelemetry/api';

export type { LogLevel } from '@kindgi/protocol';

/** Writes one JSON object per line. */
export interface ServerLogger {
  log(level: LogLevel, event: string, message: string, fields?: LogFields): void;
}

/** The active span's ids, when tracing is on and a span is active (a request, a tool call). */
function traceFields(): LogFields | undefined {
  const span = trace.getSpanContext(context.active());
  return span && isSpanContextValid(span) ? { traceId: span.traceId, spanId: span.spanId } : undefined;
}

/**
 * `@kindgi/log`'s records as subsystem `server`, every level written: time, level, severity, subsystem,
 * event, message, traceId/spanId, then the event's own fields. One `write` per record, so concurrent
 * output (a pack service's, a handler's) never splits a record.
 */
export function createJsonLogger(write: (line: string) => void = (line) => process.stderr.write(line)): ServerLogger {
  const log = createLog({ destination: { write }, subsystem: 'server', level: 'debug', context: traceFields });
  return { log: (level, event, message, fields) => log.record(event, level, message, fields) };
}
