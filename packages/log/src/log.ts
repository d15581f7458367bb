import type { LogFields, LogLevel } from '@kindgi/protocol';
import type { Logger } from 'pino';
import { LEVEL_RANK, levelFor } from './levels.js';
import { prettyText } from './pretty.js';
import { fieldText, recordLogger } from './record-logger.js';
import { compileShape, type RecordShape, type ShapeTarget, shapeHead } from './record-shape.js';

/** `json`: one JSON object per line; `pretty`: one readable line per record, for a terminal. */
export type LogFormat = 'json' | 'pretty';

/**
 * Where `event` stands: `event-message` (the server, the API) or `message-event-kind` (the pack service,
 * whose `kind` repeats `event` for older readers). Records without an event have `message` alone.
 */
export type LogLayout = 'event-message' | 'message-event-kind';

/** Where whole records go. */
export interface LogDestination {
  /** One record's text, ending in a newline: one call per record, so records never interleave. */
  write(text: string): void;
  /** Writes what the destination holds now: a lifecycle record must not wait. */
  flush?(): void;
}

/** How a `Log` writes and filters. */
export interface LogOptions {
  destination: LogDestination;
  /** The root logger's subsystem (`server`, `api`, `pack`). */
  subsystem: string;
  /** Default `info`. */
  level?: LogLevel;
  /** Per-subsystem levels (`pack.tool` → `warn`); the longest matching dotted prefix wins. */
  levels?: Readonly<Record<string, LogLevel>>;
  /** Default `json`. */
  format?: LogFormat;
  /** Default `event-message`. */
  layout?: LogLayout;
  /** Fields of the moment added to every record after the bound ones (the server: the active span's ids). */
  context?: () => LogFields | undefined;
  /** The clock, for tests. */
  now?: () => Date;
}

/** A logger for one subsystem: one record per line, fields after the fixed ones, `undefined` values left out. */
export interface Log {
  readonly subsystem: string;
  /** True when a record at `level` would be written. */
  enabled(level: LogLevel): boolean;
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  /** A record named by `event` that follows the log level. */
  record(event: string, level: LogLevel, message: string, fields?: LogFields): void;
  /** A lifecycle record (`listening`, `boot-failed`, …): written at any level and flushed at once. */
  lifecycle(event: string, level: LogLevel, message: string, fields?: LogFields): void;
  /** A logger for another subsystem that adds `fields` to each of its records. */
  child(subsystem: string, fields?: LogFields): Log;
  /**
   * A writer of `event` records whose own fields are `names`, in that order: the same records as `record`
   * writes, for one written on every call (its names' text and the head are made once).
   */
  shape(event: string, names: readonly string[]): RecordShape;
}

// Written by the record's head: a field of the same name is left out rather than written twice.
function isFixed(key: string): boolean {
  return key === 'time' || key === 'level' || key === 'severity' || key === 'subsystem';
}

/** Adds the fields `record` does not have yet; the first of two values of one name wins. */
function addFields(record: Record<string, unknown>, fields: LogFields): void {
  for (const key in fields) {
    const value = fields[key];
    if (value !== undefined && !(key in record) && !isFixed(key)) record[key] = value;
  }
}

// The common case (a root logger's record whose fields use none of the head's names) as one native copy:
// half the cost of the loop on the per-call `call` record. `undefined` values are copied; JSON leaves them
// out.
function addOwnFields(record: Record<string, unknown>, fields: LogFields): void {
  if (
    fields.message === undefined &&
    fields.event === undefined &&
    fields.kind === undefined &&
    fields.time === undefined &&
    fields.level === undefined &&
    fields.severity === undefined &&
    fields.subsystem === undefined
  ) {
    Object.assign(record, fields);
  } else {
    addFields(record, fields);
  }
}

/** What the loggers of one `createLog` share. */
class LogRoot {
  readonly pino: Logger;
  readonly options: LogOptions;
  readonly layout: LogLayout;
  /** A record's whole text to the destination (as pretty text when the format says so). */
  readonly write: (text: string) => void;
  readonly fieldText: (value: unknown) => string | undefined;
  #lastMs = Number.NaN;
  #lastIso = '';

  constructor(options: LogOptions) {
    this.options = options;
    this.layout = options.layout ?? 'event-message';
    const { destination } = options;
    this.write =
      options.format === 'pretty'
        ? (text: string) => destination.write(prettyText(text))
        : (text: string) => destination.write(text);
    this.pino = recordLogger(this.write, () => this.isoTime());
    this.fieldText = fieldText(this.pino);
  }

  /** Under load many records share a millisecond: its ISO text is made once. */
  isoTime(): string {
    const { now } = this.options;
    if (now) return now().toISOString();
    const ms = Date.now();
    if (ms !== this.#lastMs) {
      this.#lastMs = ms;
      this.#lastIso = new Date(ms).toISOString();
    }
    return this.#lastIso;
  }

  /** Names the head of an `event` record holds, besides the fixed ones. */
  headHas(name: string): boolean {
    return name === 'message' || name === 'event' || (name === 'kind' && this.layout === 'message-event-kind');
  }

  head(message: string, event: string | undefined): Record<string, unknown> {
    if (event === undefined) return { message };
    return this.layout === 'message-event-kind' ? { message, event, kind: event } : { event, message };
  }
}

class RecordLog implements Log {
  readonly subsystem: string;
  readonly #root: LogRoot;
  // pino's child for this subsystem: its bindings write `subsystem` once, not per record.
  readonly #pino: Logger;
  readonly #threshold: number;
  readonly #bound: LogFields | undefined;

  constructor(root: LogRoot, subsystem: string, bound: LogFields) {
    this.#root = root;
    this.subsystem = subsystem;
    this.#pino = root.pino.child({ subsystem });
    const { level = 'info', levels = {} } = root.options;
    this.#threshold = LEVEL_RANK[levelFor(subsystem, level, levels)];
    this.#bound = Object.values(bound).some((value) => value !== undefined) ? bound : undefined;
  }

  enabled(level: LogLevel): boolean {
    return LEVEL_RANK[level] >= this.#threshold;
  }
  debug(message: string, fields?: LogFields): void {
    if (this.enabled('debug')) this.#emit('debug', message, fields, undefined);
  }
  info(message: string, fields?: LogFields): void {
    if (this.enabled('info')) this.#emit('info', message, fields, undefined);
  }
  warn(message: string, fields?: LogFields): void {
    if (this.enabled('warn')) this.#emit('warn', message, fields, undefined);
  }
  error(message: string, fields?: LogFields): void {
    if (this.enabled('error')) this.#emit('error', message, fields, undefined);
  }
  record(event: string, level: LogLevel, message: string, fields?: LogFields): void {
    if (this.enabled(level)) this.#emit(level, message, fields, event);
  }
  lifecycle(event: string, level: LogLevel, message: string, fields?: LogFields): void {
    this.#emit(level, message, fields, event);
    // `listening`, `boot-failed`, `stopped`…: a supervisor waits for them, and the process may exit next.
    this.#root.options.destination.flush?.();
  }
  child(subsystem: string, fields: LogFields = {}): Log {
    return new RecordLog(this.#root, subsystem, { ...this.#bound, ...fields });
  }
  shape(event: string, names: readonly string[]): RecordShape {
    const root = this.#root;
    // Fields of the moment come between the bound and the own ones: such a record is built the usual way.
    if (root.options.context !== undefined) return fieldsShape(this, event, names);
    const bound = this.#bound ?? {};
    let boundText = '';
    for (const key in bound) {
      const member =
        bound[key] === undefined || isFixed(key) || root.headHas(key) ? undefined : root.fieldText(bound[key]);
      if (member !== undefined) boundText += `,${JSON.stringify(key)}:${member}`;
    }
    const target: ShapeTarget = {
      enabled: (level) => this.enabled(level),
      timeText: () => `"time":"${root.isoTime()}"`,
      headAfterLevel: shapeHead(this.subsystem, event, root.layout === 'event-message'),
      boundText,
      taken: (name) => isFixed(name) || root.headHas(name) || bound[name] !== undefined,
      valueText: root.fieldText,
      write: root.write,
    };
    return compileShape(target, names);
  }

  #emit(level: LogLevel, message: string, fields: LogFields | undefined, event: string | undefined): void {
    const record = this.#root.head(message, event);
    const context = this.#root.options.context?.();
    if (this.#bound === undefined && context === undefined) {
      if (fields !== undefined) addOwnFields(record, fields);
    } else {
      if (this.#bound !== undefined) addFields(record, this.#bound);
      if (context !== undefined) addFields(record, context);
      if (fields !== undefined) addFields(record, fields);
    }
    this.#pino[level](record);
  }
}

/** A shape that builds its record's fields and writes them as `record` does. */
function fieldsShape(log: Log, event: string, names: readonly string[]): RecordShape {
  return {
    write(level, message, values) {
      if (!log.enabled(level)) return;
      const fields: LogFields = {};
      names.forEach((name, i) => {
        if (!(name in fields)) fields[name] = values[i];
      });
      log.record(event, level, message, fields);
    },
  };
}

/**
 * The one logger of every Kindgi process, on pino: records in the shape docs/operations.md documents
 * (`time`, `level`, `severity`, `subsystem`, `event`/`message` as `layout` says, then bound, context and
 * own fields), filtered per subsystem, written whole to `destination`.
 */
export function createLog(options: LogOptions): Log {
  return new RecordLog(new LogRoot(options), options.subsystem, {});
}
