// Writers of whole records to stderr that other code sharing the stream (pack code) can't corrupt. A
// record's text is one line ending in a newline, as pino makes it.
import { writeSync } from 'node:fs';

/** A record writer that holds records briefly and writes them together; `flush` writes what it holds now. */
export type BatchedLineWriter = ((text: string) => void) & { flush(): void };

interface LineState {
  writeLine: (text: string) => void;
  batched: BatchedLineWriter;
}

// Shared through the stream object, so two copies of this module in one process (a bundle and a
// package) still write through one hook and one held batch.
const STATE = Symbol.for('kindgi.log.stderr-lines');
type Hooked = NodeJS.WriteStream & { [STATE]?: LineState };

// Past this many characters held, a batch is written at once instead of at the end of the loop turn.
const MAX_HELD = 64 * 1024;

// Every batched writer in the process, flushed synchronously on exit so no held record is lost.
const flushers = new Set<() => void>();
let exitHooked = false;

function endsWithNewline(chunk: unknown): boolean | undefined {
  if (typeof chunk === 'string') return chunk.length === 0 ? undefined : chunk.endsWith('\n');
  if (chunk instanceof Uint8Array) return chunk.length === 0 ? undefined : chunk[chunk.length - 1] === 0x0a;
  return undefined;
}

/**
 * Writes text on the stream's descriptor with one `write(2)` while the stream has nothing waiting to go
 * out. The stream's own path (a write request and its callbacks, and once a pipe is full a queue that
 * trickles out as the reader drains it) cost several times the system call per `call` record
 * (docs/benchmarks/pack-service.md). What the descriptor does not take now (a full pipe's EAGAIN, the
 * rest of a partial write) goes through the stream, which queues it; later text follows it there until
 * the queue is empty, so the order holds. Errors (EPIPE: the reader left) are the stream's to handle.
 */
function directWriter(target: NodeJS.WriteStream, original: (...args: unknown[]) => boolean): (text: string) => void {
  const fd = (target as { fd?: unknown }).fd;
  if (typeof fd !== 'number') return (text) => void original(text);
  return (text) => {
    if (target.writableLength > 0 || target.destroyed) {
      original(text);
      return;
    }
    let written: number;
    try {
      written = writeSync(fd, text);
    } catch {
      original(text);
      return;
    }
    // `writeSync` counts UTF-8 bytes: a shorter write leaves the rest of the encoded text.
    if (written === Buffer.byteLength(text, 'utf8')) return;
    original(Buffer.from(text, 'utf8').subarray(written));
  };
}

/**
 * Hooks the stream once: every other write to it first writes the held lines (so the order of the stream
 * is the order of the calls), and is watched for a partial last line, after which the next record starts
 * on a fresh line. Both writers share that state.
 */
function lineState(stream: NodeJS.WriteStream): LineState {
  const target = stream as Hooked;
  const existing = target[STATE];
  if (existing) return existing;
  const original = target.write.bind(target) as (...args: unknown[]) => boolean;
  const writeOut = directWriter(target, original);
  // A reader that went away (EPIPE: the supervisor died) must not turn every record into an uncaught
  // exception, each logged again to the same broken stream: the stdin watch drains and exits instead.
  target.on('error', () => {});
  let atLineStart = true;
  let held = '';
  let scheduled = false;

  const flush = (): void => {
    if (held === '') return;
    const text = held;
    held = '';
    writeOut(text);
  };
  // A record after a partial line of other output starts on a fresh line.
  const lineOf = (text: string): string => {
    if (atLineStart) return text;
    atLineStart = true;
    return `\n${text}`;
  };
  target.write = ((chunk: unknown, ...rest: unknown[]) => {
    flush();
    const ended = endsWithNewline(chunk);
    if (ended !== undefined) atLineStart = ended;
    return original(chunk, ...rest);
  }) as typeof target.write;

  const onTurnEnd = (): void => {
    scheduled = false;
    flush();
  };
  const batched = ((text: string): void => {
    held += lineOf(text);
    if (held.length >= MAX_HELD) flush();
    else if (!scheduled) {
      scheduled = true;
      setImmediate(onTurnEnd);
    }
  }) as BatchedLineWriter;
  batched.flush = flush;
  const writeLine = (text: string): void => {
    flush();
    writeOut(lineOf(text));
  };

  flushers.add(flush);
  if (!exitHooked) {
    exitHooked = true;
    process.once('exit', () => {
      for (const pending of flushers) pending();
    });
  }
  const state = { writeLine, batched };
  target[STATE] = state;
  return state;
}

/**
 * A record writer for stderr (each record's text one line ending in a newline) that pack code can't
 * corrupt: it watches every other write to the stream, and when pack code left a partial line it starts
 * the record on a fresh line. Each record is one `write(2)`,
 * or, when a full pipe takes only part of it, its rest is queued on the stream ahead of every later write,
 * so nothing written through the stream lands inside a record.
 */
export function stderrLineWriter(stream: NodeJS.WriteStream = process.stderr): (text: string) => void {
  return lineState(stream).writeLine;
}

/**
 * Like `stderrLineWriter`, but the records of one event-loop turn go out together in one `write` at its
 * end (a write per record costs more than building it). Each record stays whole; any other write to the stream,
 * process exit and `flush()` write the held lines first, so nothing is reordered or lost.
 */
export function stderrBatchedLineWriter(stream: NodeJS.WriteStream = process.stderr): BatchedLineWriter {
  return lineState(stream).batched;
}
