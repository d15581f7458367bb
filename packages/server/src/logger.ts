/** A structured log record's level. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** Writes one JSON object per line. */
export interface ServerLogger {
  log(level: LogLevel, event: string, message: string, fields?: Record<string, unknown>): void;
}

/**
 * JSON lines on stderr, one `write` per record so concurrent output (a pack service's, a handler's)
 * never splits a record.
 */
export function createJsonLogger(write: (line: string) => void = (line) => process.stderr.write(line)): ServerLogger {
  return {
    log(level, event, message, fields = {}) {
      const record = { time: new Date().toISOString(), level, subsystem: 'server', event, message, ...fields };
      let line: string;
      try {
        line = JSON.stringify(record);
      } catch {
        line = JSON.stringify({ time: record.time, level, subsystem: 'server', event, message });
      }
      write(`${line}\n`);
    },
  };
}
