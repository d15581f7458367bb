/** Log levels, lowest first: shared by the server's and the pack service's loggers. */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;

/** A structured log record's level. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** True when `value` names a log level. */
export function isLogLevel(value: string): value is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(value);
}
