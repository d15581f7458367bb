import { isLogLevel, LOG_LEVELS, type LogFields, type LogLevel } from '@kindgi/protocol';
import { jsonString } from './json-text.js';
import { stderrBatchedLineWriter } from './line-writer.js';

export { type BatchedLineWriter, stderrBatchedLineWriter, stderrLineWriter } from './line-writer.js';

/** Log levels and their check: protocol's, shared with the server. */
export { isLogLevel, LOG_LEVELS, type LogLevel };
export type LogFormat = 'json' | 'pretty';

const rank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
// Cloud Logging's severity names, so a platform's log viewer colours the lines.
const severity: Record<LogLevel, string> = { debug: 'DEBUG', info: 'INFO', warn: 'WARNING', error: 'ERROR' };

/** Fields of a log record beyond the fixed ones (`undefined` values are left out): protocol's `LogFields`. */
export type { LogFields } from '@kindgi/protocol';

/** A logger for one subsystem: JSON (or pretty) lines, one record per line. */
export interface PackLog {
  readonly subsystem: string;
  /** True when a record at `level` would be written. */
  enabled(level: LogLevel): boolean;
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  /** A record named by `event` (also its `kind`) that follows the log level. */
  record(event: string, level: LogLevel, message: string, fields?: LogFields): void;
  /** A lifecycle record (`listening`, `boot-failed`, …): written at any log level. */
  lifecycle(event: string, level: LogLevel, message: string, fields?: LogFields): void;
  /** A logger for another subsystem that adds `fields` to each record. */
  child(subsystem: string, fields?: LogFields): PackLog;
}

/**
 * A `record` whose fields are already JSON text: `members` is `,"name":value…` for names that are none of
 * the fixed ones (`time` … `kind`) and not array indexes, with no `undefined` value. The line is the one
 * `record` writes for the same fields, without building and serialising a record object (the `call`
 * record of every call goes this way). Only JSON-format logs without bound fields have it.
 */
export type RecordMembers = (event: string, level: LogLevel, message: string, members: string) => void;

/** Where a `PackLog` made by `createPackLog` keeps its `RecordMembers` (not part of the public surface). */
export const RECORD_MEMBERS: unique symbol = Symbol('kindgi.pack-log.record-members');

/** A `PackLog` that may offer `RecordMembers`. */
export type MaybeMembersLog = PackLog & { readonly [RECORD_MEMBERS]?: RecordMembers };

/** How a `PackLog` writes and filters. */
export interface PackLogOptions {
  /**
   * Receives each whole line without its newline. Default: stderr, the lines of one event-loop turn in
   * one write (lifecycle records at once).
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

function levelFor(subsystem: string, level: LogLevel, levels: Readonly<Record<string, LogLevel>>): LogLevel {
  let best: LogLevel | undefined;
  let bestLength = -1;
  for (const [prefix, value] of Object.entries(levels)) {
    const matches = subsystem === prefix || subsystem.startsWith(`${prefix}.`);
    if (matches && prefix.length > bestLength) {
      best = value;
      bestLength = prefix.length;
    }
  }
  return best ?? level;
}

function safeJson(record: Record<string, unknown>): string {
  try {
    // The plain form first: a replacer function makes every stringify several times slower.
    return JSON.stringify(record);
  } catch {
    try {
      return JSON.stringify(record, (_key, value) => (typeof value === 'bigint' ? value.toString() : value));
    } catch {
      // A field with a cycle must not lose the record: keep the fixed fields and say why.
      const { time, level, severity: sev, subsystem, message, event, kind } = record;
      return JSON.stringify({
        time,
        level,
        severity: sev,
        subsystem,
        message,
        event,
        kind,
        logError: 'unserialisable fields',
      });
    }
  }
}

function pretty(record: Record<string, unknown>): string {
  const { time, level, subsystem, message, severity: _s, ...rest } = record;
  const extras = Object.entries(rest)
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : safeJson({ v: value }).slice(5, -1)}`)
    .join(' ');
  const line = `${String(time)} ${String(level).toUpperCase().padEnd(5)} [${String(subsystem)}] ${String(message)}`;
  return (extras ? `${line} ${extras}` : line).replace(/\n/g, '\\n');
}

/** Creates a logger. Each record is one line handed to `write` in one call, so lines never interleave. */
export function createPackLog(options: PackLogOptions = {}): PackLog {
  const batched = options.write === undefined ? stderrBatchedLineWriter() : undefined;
  const write = options.write ?? (batched as (line: string) => void);
  const base = options.level ?? 'info';
  const levels = options.levels ?? {};
  const format = options.format ?? 'json';
  const now = options.now;
  // Under load many records share a millisecond: format its ISO time once.
  let lastMs = Number.NaN;
  let lastIso = '';
  const isoTime = (): string => {
    if (now) return now().toISOString();
    const ms = Date.now();
    if (ms !== lastMs) {
      lastMs = ms;
      lastIso = new Date(ms).toISOString();
    }
    return lastIso;
  };

  function make(subsystem: string, bound: LogFields): PackLog {
    const threshold = rank[levelFor(subsystem, base, levels)];
    const emit = (level: LogLevel, message: string, fields: LogFields | undefined, event?: string): void => {
      const record: Record<string, unknown> = {
        time: isoTime(),
        level,
        severity: severity[level],
        subsystem,
        message,
      };
      if (event !== undefined) {
        record.event = event;
        record.kind = event;
      }
      for (const key in bound) {
        const value = bound[key];
        if (value !== undefined && !(key in record)) record[key] = value;
      }
      if (fields !== undefined) {
        for (const key in fields) {
          const value = fields[key];
          if (value !== undefined && !(key in record)) record[key] = value;
        }
      }
      write(format === 'json' ? safeJson(record) : pretty(record));
    };
    // The fixed fields' text is what `safeJson` makes of them: level and severity are plain words, and an
    // ISO time has no character JSON escapes.
    const subsystemText = `","subsystem":${jsonString(subsystem)},"message":`;
    const members: RecordMembers = (event, level, message, text) => {
      if (rank[level] < threshold) return;
      const eventText = jsonString(event);
      write(
        `{"time":"${isoTime()}","level":"${level}","severity":"${severity[level]}${subsystemText}${jsonString(message)},"event":${eventText},"kind":${eventText}${text}}`,
      );
    };
    const hasBound = Object.values(bound).some((value) => value !== undefined);
    const at = (level: LogLevel) => (message: string, fields?: LogFields) => {
      if (rank[level] >= threshold) emit(level, message, fields);
    };
    return {
      subsystem,
      enabled: (level) => rank[level] >= threshold,
      debug: at('debug'),
      info: at('info'),
      warn: at('warn'),
      error: at('error'),
      record(event, level, message, fields) {
        if (rank[level] >= threshold) emit(level, message, fields, event);
      },
      lifecycle(event, level, message, fields) {
        emit(level, message, fields, event);
        // `listening`, `boot-failed`, `stopped`…: a supervisor waits for them, and the process may exit next.
        batched?.flush();
      },
      child: (name, fields = {}) => make(name, { ...bound, ...fields }),
      ...(format === 'json' && !hasBound ? { [RECORD_MEMBERS]: members } : {}),
    };
  }
  return make(options.subsystem ?? 'pack', {});
}
