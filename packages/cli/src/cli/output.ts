import { type CliIo, EXIT, type ExitCode } from './command.js';

/** Why a command failed: a stable code scripts can match, and a sentence for people. */
export interface CliFailure {
  readonly code: string;
  readonly message: string;
  readonly details?: Readonly<Record<string, unknown>>;
}

/** Where and how a command prints: its name (for messages) and whether `--json` was given. */
export interface OutputMode {
  readonly command: string;
  readonly json: boolean;
}

function line(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}

/**
 * Prints a command's result on stdout: `text` for people, or `value` as exactly one JSON document under
 * `--json` (nothing else goes to stdout then).
 */
export function printResult(io: CliIo, mode: OutputMode, value: unknown, text: string | (() => string)): ExitCode {
  if (mode.json) io.stdout(`${JSON.stringify(value)}\n`);
  else {
    const human = typeof text === 'function' ? text() : text;
    if (human !== '') io.stdout(line(human));
  }
  return EXIT.ok;
}

/** Progress for people: always stderr, so stdout stays the result (and valid JSON under `--json`). */
export function printProgress(io: CliIo, text: string): void {
  io.stderr(line(text));
}

/**
 * Reports a failure: `kindgi <command>: <message>` on stderr; under `--json` also
 * `{"error": {code, message, details?}}` as stdout's one document. Returns exit 1.
 */
export function printFailure(io: CliIo, mode: OutputMode, failure: CliFailure): ExitCode {
  io.stderr(line(`kindgi ${mode.command}: ${failure.message}`));
  if (mode.json) io.stdout(`${JSON.stringify({ error: failure })}\n`);
  return EXIT.failed;
}
