import { StringDecoder } from 'node:string_decoder';

/** Splits a byte stream into lines, whatever the chunking; lines over the limit are dropped whole. */
export interface LineReader {
  push(chunk: Buffer | string): void;
  /** Flushes a final line that had no newline. */
  end(): void;
  /** How many over-long lines were dropped. */
  readonly dropped: number;
}

/** One MiB: far above any log record, small enough that a runaway line cannot exhaust memory. */
export const DEFAULT_MAX_LINE_CHARS = 1024 * 1024;

/**
 * Creates a line reader calling `onLine` for each complete line (without `\n` or a trailing `\r`).
 * Multi-byte characters split across chunks are decoded correctly.
 */
export function createLineReader(onLine: (line: string) => void, maxLineChars = DEFAULT_MAX_LINE_CHARS): LineReader {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  // While true, the current line already overflowed: discard through its newline.
  let skipping = false;
  let dropped = 0;

  const emit = (line: string): void => {
    onLine(line.endsWith('\r') ? line.slice(0, -1) : line);
  };

  const take = (text: string): void => {
    let start = 0;
    for (;;) {
      const newline = text.indexOf('\n', start);
      if (newline === -1) break;
      if (skipping) {
        skipping = false;
      } else if (pending.length + (newline - start) > maxLineChars) {
        dropped++;
      } else {
        emit(pending + text.slice(start, newline));
      }
      pending = '';
      start = newline + 1;
    }
    if (skipping) return;
    const rest = text.slice(start);
    if (pending.length + rest.length > maxLineChars) {
      pending = '';
      skipping = true;
      dropped++;
    } else {
      pending += rest;
    }
  };

  return {
    push(chunk) {
      take(typeof chunk === 'string' ? chunk : decoder.write(chunk));
    },
    end() {
      take(decoder.end());
      if (!skipping && pending !== '') emit(pending);
      pending = '';
      skipping = false;
    },
    get dropped() {
      return dropped;
    },
  };
}
