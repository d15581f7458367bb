import type { LogLevel } from '@kindgi/protocol';
import { SEVERITY } from './levels.js';

/**
 * A record of one event whose field names are known ahead, written from its values in the names' order
 * (`undefined` values left out). For a record written on every call (the pack service's `call`): the
 * record's text is the one string it builds, with no record object, no walk over its keys and no copy.
 */
export interface RecordShape {
  /** Writes the record at `level` when the logger's level lets it through; `values[i]` is `names[i]`'s. */
  write(level: LogLevel, message: string, values: readonly unknown[]): void;
}

/** What a shape needs from its logger: the record's head text and where its line goes. */
export interface ShapeTarget {
  enabled(level: LogLevel): boolean;
  /** `"time":"…"`: the timestamp member as pino's timestamp function writes it. */
  timeText(): string;
  /** After the level: `,"subsystem":"…"`, then the layout's `message`/`event`/`kind` (`message` is `%M%`). */
  headAfterLevel: string;
  /** The logger's bound fields as members (`,"name":value…`), already filtered. */
  boundText: string;
  /** Names a shape field may not use: the fixed ones, the head's, the bound ones (the first value wins). */
  taken(name: string): boolean;
  /** A value's JSON text as every other record writes it, or `undefined` for one JSON leaves out. */
  valueText(value: unknown): string | undefined;
  /** Hands over one record's whole text (ending in a newline). */
  write(text: string): void;
}

const MESSAGE_SLOT = '%M%';

const LEVEL_MEMBERS: Readonly<Record<LogLevel, string>> = {
  debug: `,"level":"debug","severity":"${SEVERITY.debug}"`,
  info: `,"level":"info","severity":"${SEVERITY.info}"`,
  warn: `,"level":"warn","severity":"${SEVERITY.warn}"`,
  error: `,"level":"error","severity":"${SEVERITY.error}"`,
};

// A string of only printable ASCII without `"` or `\` is its own JSON text between quotes: ids, names and
// codes almost always are, and the check costs less than JSON.stringify's call.
function plainAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code > 0x7e || code === 0x22 || code === 0x5c) return false;
  }
  return true;
}

/** A string's JSON text (lone surrogates escaped, as JSON.stringify writes them). */
export function jsonString(text: string): string {
  return text.length <= 64 && plainAscii(text) ? `"${text}"` : JSON.stringify(text);
}

class CompiledShape implements RecordShape {
  readonly #target: ShapeTarget;
  // `,"name":` per field, or `undefined` for a name the record already has (left out, as a field would be).
  readonly #keys: (string | undefined)[];
  readonly #headBefore: string;
  readonly #headAfter: string;

  constructor(target: ShapeTarget, names: readonly string[]) {
    this.#target = target;
    this.#keys = names.map((name, i) =>
      target.taken(name) || names.indexOf(name) < i ? undefined : `,${jsonString(name)}:`,
    );
    const at = target.headAfterLevel.indexOf(MESSAGE_SLOT);
    this.#headBefore = target.headAfterLevel.slice(0, at);
    this.#headAfter = target.headAfterLevel.slice(at + MESSAGE_SLOT.length) + target.boundText;
  }

  write(level: LogLevel, message: string, values: readonly unknown[]): void {
    const target = this.#target;
    if (!target.enabled(level)) return;
    let text = `{${target.timeText()}${LEVEL_MEMBERS[level]}${this.#headBefore}${jsonString(message)}${this.#headAfter}`;
    const keys = this.#keys;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      const value = values[i];
      if (key === undefined || value === undefined) continue;
      if (typeof value === 'string') text += key + jsonString(value);
      else if (typeof value === 'number') text += key + (Number.isFinite(value) ? `${value}` : 'null');
      else {
        const member = target.valueText(value);
        if (member !== undefined) text += key + member;
      }
    }
    target.write(`${text}}\n`);
  }
}

/** Compiles a shape for `target`: the names' JSON text and the head around the message, once. */
export function compileShape(target: ShapeTarget, names: readonly string[]): RecordShape {
  return new CompiledShape(target, names);
}

/** The head after the level for a layout: the subsystem, then `message` (as `%M%`), `event` and `kind`. */
export function shapeHead(subsystem: string, event: string, eventFirst: boolean): string {
  const sub = `,"subsystem":${jsonString(subsystem)}`;
  const ev = jsonString(event);
  return eventFirst
    ? `${sub},"event":${ev},"message":${MESSAGE_SLOT}`
    : `${sub},"message":${MESSAGE_SLOT},"event":${ev},"kind":${ev}`;
}
