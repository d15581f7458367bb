import { LOG_LEVELS } from '@kindgi/protocol';
import { type Logger, pino } from 'pino';
import { SEVERITY } from './levels.js';

const { asJsonSym, chindingsSym, stringifySafeSym } = pino.symbols;

// The record's `level` and `severity` for each of pino's level numbers, as its level methods pass them.
const LEVEL_TEXT: Readonly<Record<number, string>> = Object.fromEntries(
  LOG_LEVELS.map((level) => [pino.levels.values[level], `,"level":"${level}","severity":"${SEVERITY[level]}"`]),
);

type SafeStringify = (value: unknown) => string | undefined;

/** pino's own state this module reads: the child's bindings text and its fallback serializer. */
type PinoState = Record<symbol, unknown>;

/**
 * A field's JSON text as pino writes one that JSON.stringify refuses (a cycle becomes `"[Circular]"`, a
 * BigInt a number), or `undefined` for a value JSON leaves out.
 */
function valueText(value: unknown, safe: SafeStringify): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    try {
      return safe(value);
    } catch {
      return '"[unserialisable]"';
    }
  }
}

/** The record's members, one at a time: only when JSON.stringify refused the whole record. */
function membersText(record: Record<string, unknown>, safe: SafeStringify): string {
  let text = '';
  for (const key in record) {
    const member = valueText(record[key], safe);
    if (member !== undefined) text += `,${JSON.stringify(key)}:${member}`;
  }
  return text;
}

/**
 * pino's serialiser for a whole record (`pino.symbols.asJsonSym`, the hook pino offers libraries built on
 * it). pino's own walks the fields in JavaScript, key by key: in the running pack service that cost about
 * 5 µs more per `call` record than V8's JSON.stringify of the same record (37.4 against 32.3 µs per call,
 * docs/benchmarks/pack-service.md), which costs what the earlier hand-written line did. The head is
 * pino's: the timestamp text, the level, the child's bindings (the subsystem); then the record's members
 * in their order.
 */
function recordLine(this: PinoState, record: Record<string, unknown>, _msg: unknown, level: number, time: string) {
  const head = `{${time}${LEVEL_TEXT[level]}${this[chindingsSym] as string}`;
  let body: string;
  try {
    body = JSON.stringify(record).slice(1, -1);
  } catch {
    body = membersText(record, this[stringifySafeSym] as SafeStringify).slice(1);
  }
  return body === '' ? `${head}}\n` : `${head},${body}}\n`;
}

/** A field's JSON text as `logger`'s records write it (pino's fallback for what JSON.stringify refuses). */
export function fieldText(logger: Logger): (value: unknown) => string | undefined {
  const safe = (logger as unknown as PinoState)[stringifySafeSym] as SafeStringify;
  return (value) => valueText(value, safe);
}

/**
 * A pino logger that writes the documented record (docs/operations.md, "Logs"): `time`, `level` and
 * `severity` as words, the child's bindings, then the record's fields, and nothing of pino's own (no
 * `pid`, `hostname` or numeric level). Each record reaches `write` whole, ending in a newline, in one
 * call: no transport, no worker thread, no buffer of pino's own.
 */
export function recordLogger(write: (text: string) => void, isoTime: () => string): Logger {
  const logger = pino({ level: 'debug', base: null, timestamp: () => `"time":"${isoTime()}"` }, { write });
  (logger as unknown as Record<symbol, unknown>)[asJsonSym] = recordLine;
  return logger;
}
