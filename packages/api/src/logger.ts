/** Where the API reports what callers do not see (unexpected errors, background run failures). */
export interface ApiLogger {
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** The default: one JSON line per event on stderr. */
export const consoleLogger: ApiLogger = {
  warn: (message, fields) => process.stderr.write(`${JSON.stringify({ level: 'warn', message, ...fields })}\n`),
  error: (message, fields) => process.stderr.write(`${JSON.stringify({ level: 'error', message, ...fields })}\n`),
};
