import { err, ok, type Result } from '@kindgi/protocol';
import type { CliIo } from '../cli/command.js';
import type { CliFailure } from '../cli/output.js';

/** A secret's largest value: the server's limit (16 KiB of UTF-8), for local values too. */
export const MAX_SECRET_BYTES = 16 * 1024;

type Stdin = NonNullable<CliIo['stdin']>;

const CTRL_C = '\u0003';
const CTRL_D = '\u0004';
const BACKSPACE = new Set(['\u007f', '\b']);

function tooLarge(): CliFailure {
  return { code: 'secret-value-invalid', message: `the value is over ${MAX_SECRET_BYTES} bytes` };
}

/** Reads piped stdin to its end (bounded), dropping one trailing newline (`\n` or `\r\n`). */
function readPiped(stdin: Stdin): Promise<Result<string, CliFailure>> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (result: Result<string, CliFailure>) => {
      stdin.removeAllListeners('data');
      stdin.removeAllListeners('end');
      stdin.removeAllListeners('error');
      resolve(result);
    };
    stdin.on('data', (chunk: Buffer | string) => {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += buffer.byteLength;
      // One newline more than the limit may still be stripped.
      if (size > MAX_SECRET_BYTES + 2) {
        stdin.pause();
        done(err(tooLarge()));
        return;
      }
      chunks.push(buffer);
    });
    stdin.on('end', () =>
      done(
        ok(
          Buffer.concat(chunks)
            .toString('utf8')
            .replace(/\r?\n$/, ''),
        ),
      ),
    );
    stdin.on('error', (cause: Error) =>
      done(err({ code: 'stdin-unreadable', message: `cannot read stdin: ${cause.message}` })),
    );
  });
}

/**
 * A no-echo prompt: raw mode, so nothing typed is shown; Enter ends the value, Backspace deletes, Ctrl-C
 * aborts (`aborted`), Ctrl-D ends it like Enter.
 */
function readHidden(stdin: Stdin, io: CliIo, prompt: string): Promise<Result<string, CliFailure>> {
  return new Promise((resolve) => {
    let value = '';
    // Raw mode before the prompt: whatever is typed once the prompt shows is never echoed.
    stdin.setRawMode?.(true);
    io.stderr(prompt);
    stdin.setEncoding('utf8');
    const finish = (result: Result<string, CliFailure>) => {
      stdin.removeListener('data', onData);
      stdin.setRawMode?.(false);
      stdin.pause();
      io.stderr('\n');
      resolve(result);
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === CTRL_C) return finish(err({ code: 'aborted', message: 'aborted: nothing was set' }));
        if (char === '\r' || char === '\n' || char === CTRL_D) return finish(ok(value));
        if (BACKSPACE.has(char)) value = [...value].slice(0, -1).join('');
        else value += char;
        if (Buffer.byteLength(value) > MAX_SECRET_BYTES) return finish(err(tooLarge()));
      }
      return undefined;
    };
    stdin.on('data', onData);
    stdin.resume();
  });
}

/** A secret's value: typed at a no-echo prompt when stdin is a terminal, else read from stdin. Never empty. */
export async function readSecretValue(io: CliIo, name: string): Promise<Result<string, CliFailure>> {
  const stdin = io.stdin;
  if (stdin === undefined) return err({ code: 'stdin-missing', message: 'no stdin to read the value from' });
  const value =
    stdin.isTTY === true ? await readHidden(stdin, io, `Value for ${name} (not shown): `) : await readPiped(stdin);
  if (value.kind === 'err') return value;
  if (value.value === '') return err({ code: 'secret-value-invalid', message: 'the value is empty: nothing was set' });
  if (Buffer.byteLength(value.value) > MAX_SECRET_BYTES) return err(tooLarge());
  return value;
}
