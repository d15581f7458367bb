// JSON text of single values, for log lines written without building a record object first.

// What JSON.stringify escapes in a string: `"`, `\`, control characters, and (well-formed JSON.stringify)
// lone surrogates. A string without any of these is its own JSON text between quotes.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it must find.
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** `JSON.stringify(value)` for a string: quoted directly when nothing in it needs escaping. */
export function jsonString(value: string): string {
  return NEEDS_ESCAPE.test(value) ? JSON.stringify(value) : `"${value}"`;
}

/** `JSON.stringify(value)` for a number as an object member: `null` when not finite, `0` for -0. */
export function jsonNumber(value: number): string {
  return Number.isFinite(value) ? String(value) : 'null';
}
