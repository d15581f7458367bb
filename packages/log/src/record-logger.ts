import type { LogLevel } from '@kindgi/protocol';
import { type Logger, pino } from 'pino';
import { SEVERITY } from './levels.js';

/** One pino logger per level; each writes records of its level only. */
export type RecordLoggers = Readonly<Record<LogLevel, Logger>>;

/**
 * pino loggers that write the head of the documented record (docs/operations.md, "Logs"): `time`, then
 * `level` and `severity` as words, and nothing pino would add on its own (no `pid`/`hostname`, no numeric
 * level, no `err` serializer: an Error field is written as JSON.stringify writes it).
 *
 * pino writes its level ahead of the time, and a child's bindings cannot carry a `level`; the record
 * starts with `time`, so each level gets its own logger whose timestamp writes all three and whose level
 * formatter writes nothing. That costs nothing per record, where rewriting pino's line would cost a copy
 * of it. Each record reaches `write` whole, ending in a newline, in one call: no transport, no worker
 * thread, no buffer of pino's own. A field with a cycle is written with `"[Circular]"` in its place and a
 * BigInt as a number (pino's safe-stable-stringify fallback), so such a field never costs the record.
 */
export function recordLoggers(write: (text: string) => void, isoTime: () => string): RecordLoggers {
  const destination = { write };
  const loggerAt = (level: LogLevel): Logger => {
    const head = `","level":"${level}","severity":"${SEVERITY[level]}"`;
    return pino(
      {
        level: 'debug',
        base: null,
        timestamp: () => `"time":"${isoTime()}${head}`,
        formatters: { level: () => ({}) },
        // pino merges its default `err` serializer in; an own `undefined` turns it off.
        serializers: { err: undefined as unknown as (value: unknown) => unknown },
      },
      destination,
    );
  };
  return { debug: loggerAt('debug'), info: loggerAt('info'), warn: loggerAt('warn'), error: loggerAt('error') };
}
