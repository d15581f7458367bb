import { createLog, type Log } from '@kindgi/log';
import type { LogFields } from '@kindgi/protocol';

/**
 * Where the HTTP surfaces (`@kindgi/api`'s REST app, `@kindgi/s3`) report what callers do not see (unexpected
 * errors, background run failures).
 */
export interface ApiLogger {
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

// Made on first use: an app wired with its own logger never builds this one.
let apiLog: Log | undefined;

// `@kindgi/log`'s records as subsystem `api` (the one docs/operations.md names for an embedded app's
// default logger), event `api`, on stderr as it is when the record is written.
function defaultLog(): Log {
  apiLog ??= createLog({ destination: { write: (text) => process.stderr.write(text) }, subsystem: 'api' });
  return apiLog;
}

/** The default: one JSON line per event on stderr, in the shape `kindgi-server` and pack services use. */
export const consoleLogger: ApiLogger = {
  warn: (message, fields) => defaultLog().record('api', 'warn', message, fields),
  error: (message, fields) => defaultLog().record('api', 'error', message, fields),
};
