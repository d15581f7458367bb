import { err, ok, type Result } from '@kindgi/protocol';

/** The largest `--input` (or all `--arg` values together) a call sends: the API's own body limit is 10 MiB. */
export const MAX_INPUT_BYTES = 1024 * 1024;
const MAX_ARGS = 256;

/** A value from `--arg k=v`: JSON when it parses as JSON (`3`, `true`, `{"a":1}`), else the text itself. */
export function argValue(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * The tool input from `--input JSON` or `--arg k=v …` (never both; neither is `{}`). Errors are sentences
 * for a usage message.
 */
export function buildInput(input: string | undefined, args: readonly string[]): Result<unknown, string> {
  if (input !== undefined && args.length > 0) return err('give the input with --input or with --arg, not both');
  if (input !== undefined) {
    if (Buffer.byteLength(input) > MAX_INPUT_BYTES) return err(`--input is over ${MAX_INPUT_BYTES} bytes`);
    try {
      return ok(JSON.parse(input) as unknown);
    } catch (cause) {
      return err(`--input is not JSON: ${(cause as Error).message}`);
    }
  }
  if (args.length > MAX_ARGS) return err(`at most ${MAX_ARGS} --arg options`);
  let bytes = 0;
  const object: Record<string, unknown> = {};
  for (const arg of args) {
    const equals = arg.indexOf('=');
    if (equals <= 0) return err(`--arg takes key=value, not "${arg.slice(0, 80)}"`);
    const key = arg.slice(0, equals);
    if (key === '__proto__') return err('--arg key "__proto__" is not allowed');
    bytes += Buffer.byteLength(arg);
    if (bytes > MAX_INPUT_BYTES) return err(`the --arg values are over ${MAX_INPUT_BYTES} bytes together`);
    object[key] = argValue(arg.slice(equals + 1));
  }
  return ok(object);
}
