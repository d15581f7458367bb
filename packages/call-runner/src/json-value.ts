import { jsonPointer, MAX_JSON_DEPTH } from '@kindgi/protocol';

/** Where and why a value cannot travel as JSON. */
export interface NotJson {
  readonly path: string;
  readonly reason: string;
}

/** A handler's output as it will travel, or where and why it cannot. */
export type JsonOutcome = { readonly ok: true; readonly value: unknown } | ({ readonly ok: false } & NotJson);

// The one JSON depth limit of every Kindgi surface: an output nested deeper could not travel in a protocol
// message (its reader refuses it), so it is refused here, where the path can still be named.
const MAX_DEPTH = MAX_JSON_DEPTH;
// Below this depth the walk keeps no list of ancestors (no allocation per call); a value nested deeper
// is walked again with cycle detection, since only a cycle or unusual data goes that deep.
const FAST_DEPTH = 64;

/** What the fast walk found: the value is plain JSON, JSON would reshape it, or a problem at a path. */
type Verdict = 'plain' | 'reshaped' | 'deep' | { readonly path: PropertyKey[]; readonly reason: string };

/**
 * A handler's output as JSON will carry it. Plain JSON data comes back as it is (no copy); a value with
 * a `toJSON` (a Date) or a class instance comes back in its JSON form, so what is validated is what is
 * sent. A BigInt, symbol, function, non-finite number, cycle, or `undefined` itself is refused with the
 * JSON Pointer of where it is. Never throws.
 */
export function toJsonOutput(value: unknown): JsonOutcome {
  if (value === undefined) return { ok: false, path: '', reason: 'undefined (return null for no value)' };
  let verdict: Verdict;
  try {
    verdict = walk(value, 0, null);
    if (verdict === 'deep') verdict = walk(value, 0, []);
  } catch (thrown) {
    // A getter or a Proxy trap in the output threw while being read.
    return { ok: false, path: '', reason: `a value that cannot be read (${describe(thrown)})` };
  }
  if (verdict === 'plain') return { ok: true, value };
  if (typeof verdict === 'object') return { ok: false, path: jsonPointer(verdict.path), reason: verdict.reason };
  try {
    const text = JSON.stringify(value);
    if (text === undefined) return { ok: false, path: '', reason: 'a value JSON leaves out' };
    return { ok: true, value: JSON.parse(text) };
  } catch (thrown) {
    return { ok: false, path: '', reason: `a value JSON cannot serialise (${describe(thrown)})` };
  }
}

function describe(thrown: unknown): string {
  try {
    return thrown instanceof Error ? `${thrown.name}: ${thrown.message}` : String(thrown);
  } catch {
    return 'unprintable';
  }
}

function problem(reason: string): Verdict {
  return { path: [], reason };
}

// Problems carry their path from the inside out: each level adds its key on the way back up.
function within(key: PropertyKey, verdict: Verdict): Verdict {
  if (typeof verdict === 'object') verdict.path.unshift(key);
  return verdict;
}

/** Walks `value`; `ancestors` is null on the fast walk (no cycle detection, bounded depth). */
function walk(value: unknown, depth: number, ancestors: object[] | null): Verdict {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return 'plain';
    case 'number':
      return Number.isFinite(value) ? 'plain' : problem(`the number ${value}`);
    case 'bigint':
      return problem('a BigInt');
    case 'symbol':
      return problem('a symbol');
    case 'function':
      return problem('a function');
    case 'undefined':
      return problem('undefined');
  }
  if (value === null) return 'plain';
  const object = value as object;
  if (typeof (object as { toJSON?: unknown }).toJSON === 'function') return 'reshaped';
  if (ancestors === null) {
    if (depth >= FAST_DEPTH) return 'deep';
  } else {
    if (ancestors.includes(object)) return problem('a circular reference');
    if (ancestors.length >= MAX_DEPTH) return problem(`nesting deeper than ${MAX_DEPTH}`);
    ancestors.push(object);
  }
  try {
    const proto = Object.getPrototypeOf(object);
    let verdict: Verdict =
      proto === Object.prototype || proto === Array.prototype || proto === null ? 'plain' : 'reshaped';
    if (Array.isArray(object)) {
      for (let i = 0; i < object.length; i++) {
        const item = walk(object[i], depth + 1, ancestors);
        if (item === 'plain') continue;
        if (item !== 'reshaped') return within(i, item);
        verdict = 'reshaped';
      }
      return verdict;
    }
    for (const key of Object.keys(object)) {
      const member = (object as Record<string, unknown>)[key];
      // JSON leaves out an object's undefined members, which is what a caller expects of `{a: maybe}`.
      if (member === undefined) continue;
      const item = walk(member, depth + 1, ancestors);
      if (item === 'plain') continue;
      if (item !== 'reshaped') return within(key, item);
      verdict = 'reshaped';
    }
    return verdict;
  } finally {
    ancestors?.pop();
  }
}
