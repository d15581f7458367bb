import { createLog, type Log, type LogDestination, type LogFormat, stderrBatchedLineWriter } from '@kindgi/log';
import { isLogLevel, LOG_LEVELS, type LogLevel } from '@kindgi/protocol';

export {
  type BatchedLineWriter,
  type LogFormat,
  type RecordShape,
  stderrBatchedLineWriter,
  stderrLineWriter,
} from '@kindgi/log';
/** Fields of a log record beyond the fixed ones (`undefined` values are left out): protocol's `LogFields`. */
export type { LogFields } from '@kindgi/protocol';
/** Log levels and their check: protocol's, shared with the server. */
export { isLogLevel, LOG_LEVELS, type LogLevel };

/** A logger for one subsystem of the pack service: `@kindgi/log`'s, in the pack service's layout. */
export type PackLog = Log;

/** How a `PackLog` writes and filters. */
export interface PackLogOptions {
  /**
   * Receives each whole line without its newline. Default: stderr, the lines of one event-loop turn in
   * one write (lifecycle records at once), never inside a line pack code writes to stderr.
   */
  write?: (line: string) => void;
  /** Default `info`. */
  level?: LogLevel;
  /** Per-subsystem levels (`pack.tool` → `warn`); the longest matching dotted prefix wins. */
  levels?: Readonly<Record<string, LogLevel>>;
  format?: LogFormat;
  /** Default `pack`. */
  subsystem?: string;
  now?: () => Date;
}

function destinationOf(write: ((line: string) => void) | undefined): LogDestination {
  if (write !== undefined) return { write: (text) => write(text.slice(0, -1)) };
  const batched = stderrBatchedLineWriter();
  return { write: batched, flush: batched.flush };
}

/**
 * Creates the pack service's logger: records with `message`, then `event` and its alias `kind`, then the
 * fields (docs/operations.md, "Logs"). Each record is one line handed to `write` in one call.
 */
export function createPackLog(options: PackLogOptions = {}): PackLog {
  const { write, subsystem = 'pack', level, levels, format, now } = options;
  return createLog({
    destination: destinationOf(write),
    subsystem,
    layout: 'message-event-kind',
    level,
    levels,
    format,
    now,
  });
}
