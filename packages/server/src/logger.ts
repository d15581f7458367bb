import type { LogLevel } from '@kindgi/protocol';
import { context, isSpanContextValid, trace } from '@opentelemetry/api';

export type { LogLevel } from '@kindgi/protocol';

/** Writes one JSON object per line. */
export interface ServerLogger {
  log(level: LogLevel, event: string, message: string, fields?: Record<string, unknown>): void;
}

// The pack service's severity names (Cloud Logging's), so both processes' records read alike.
const SEVERITY: Record<LogLevel, string> = { debug: 'DEBUG', info: 'INFO', warn: 'WARNING', error: 'ERROR' };

/** The active span's ids, when tracing is on and a span is active (a request, a tool call). */
function traceFields(): { traceId?: string; spanId?: string } {
  const span = trace.getSpanContext(context.active());
  return span && isSpanContextValid(span) ? { traceId: span.traceId, spanId: span.spanId } : {};
}

/**
 * JSON lines on stderr, one `write` per record so concurrent output (a pack service's, a handler's)
 * never splits a record. Fields: time, level, severity, subsystem, event, message, traceId/spanId, then
 * the event's own.
 */
export function createJsonLogger(write: (line: string) => void = (line) => process.stderr.write(line)): ServerLogger {
  return {
    log(level, event, message, fields = {}) {
      const fixed = {
        time: new Date().toISOString(),
        level,
        severity: SEVERITY[level],
        subsystem: 'server',
        event,
        message,
      };
      const record = { ...fixed, ...traceFields(), ...fields };
      let line: string;
      try {
        line = JSON.stringify(record);
      } catch {
        line = JSON.stringify(fixed);
      }
      write(`${line}\n`);
    },
  };
}
