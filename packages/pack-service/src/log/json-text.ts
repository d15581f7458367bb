// JSON text of single values, for log lines written without building a record object first.

/** `JSON.stringify(value)` for a string: quoted directly when nothing in it needs escaping. */
export function jsonString(value: string): string {
  return needsEscape(value) ? JSON.stringify(value) : `"${value}"`;
}

// What JSON.stringify escapes in a string: `"`, `\`, control characters, and (well-formed JSON.stringify)
// lone surrogates; any surrogate is sent to JSON.stringify, which keeps well-formed pairs as they are.
// A loop over code units, not a RegExp: on the concatenated strings of a call record (its message) a
// `test` went through V8's runtime (`Runtime_RegExpExec`) every time; the loop only pays one flatten.
function needsEscape(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || code === 0x22 || code === 0x5c || (code >= 0xd800 && code <= 0xdfff)) return true;
  }
  return false;
}

/** `JSON.stringify(value)` for a number as an object member: `null` when not finite, `0` for -0. */
export function jsonNumber(value: number): string {
  return Number.isFinite(value) ? String(value) : 'null';
}
