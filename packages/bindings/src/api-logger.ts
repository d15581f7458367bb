/**
 * Where the HTTP surfaces (`@kindgi/api`'s REST app, `@kindgi/s3`) report what callers do not see (unexpected
 * errors, background run failures).
 */
export interface ApiLogger {
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

// The record shape every Kindgi process writes (docs/operations.md, "Logs"): time, level, severity,
// subsystem, event, message, then the record's own fields. Both surfaces log as subsystem `api`, the one
// docs/operations.md names for an embedded app's default logger.
function write(level: 'warn' | 'error', severity: string, message: string, fields?: Record<string, unknown>): void {
  const record = {
    time: new Date().toISOString(),
    level,
    severity,
    subsystem: 'api',
    event: 'api',
    message,
    ...fields,
  };
  process.stderr.write(`${JSON.stringify(record)}\n`);
}

/** The default: one JSON line per event on stderr, in the shape `kindgi-server` and pack services use. */
export const consoleLogger: ApiLogger = {
  warn: (message, fields) => write('warn', 'WARNING', message, fields),
  error: (message, fields) => write('error', 'ERROR', message, fields),
};
