import { err, ok, type Result } from '@kindgi/protocol';
import type { BlobError, ListByPrefixInput } from '../blob-storage.js';

/** Where a scan resumes: the first key after `key` (or at it, when `inclusive`). */
export interface ScanBound {
  key: string;
  inclusive: boolean;
}

/** The first stored entry at or after a bound, in UTF-16 code-unit key order; `undefined` at the end. */
export type FirstKeyAt<T extends { key: string }> = (bound: ScanBound | undefined) => T | undefined;

/** A page of `listByPrefix`, before the entries are turned into metadata. */
export interface PrefixPage<T> {
  contents: T[];
  commonPrefixes: string[];
  isTruncated: boolean;
  nextContinuationToken?: string;
}

/** The smallest string greater than every string that starts with `prefix`, or `undefined` when none is. */
export function prefixSuccessor(prefix: string): string | undefined {
  let end = prefix.length;
  while (end > 0 && prefix.charCodeAt(end - 1) === 0xffff) end--;
  if (end === 0) return undefined;
  return prefix.slice(0, end - 1) + String.fromCharCode(prefix.charCodeAt(end - 1) + 1);
}

function encodeToken(bound: ScanBound): string {
  return Buffer.from(JSON.stringify({ v: 1, k: bound.key, i: bound.inclusive }), 'utf8').toString('base64url');
}

function decodeToken(token: string): ScanBound | undefined {
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as unknown;
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    const { v, k, i } = parsed as { v?: unknown; k?: unknown; i?: unknown };
    if (v !== 1 || typeof k !== 'string' || typeof i !== 'boolean') return undefined;
    return { key: k, inclusive: i };
  } catch {
    return undefined;
  }
}

/**
 * ListObjectsV2 as steps: yields each bound to look up and receives the first entry at it (`undefined` at the
 * end), then returns the page. Bounds only ever increase, so a caller may forget what lies behind one.
 */
function* listingSteps<T extends { key: string }>(
  input: ListByPrefixInput,
): Generator<ScanBound | undefined, Result<PrefixPage<T>, BlobError>, T | undefined> {
  const maxKeys = input.maxKeys ?? 1000;
  if (!Number.isInteger(maxKeys) || maxKeys < 0) {
    return err({ code: 'invalid-key', message: `maxKeys must be an integer from 0 to 1000, got ${maxKeys}` });
  }
  const limit = Math.min(maxKeys, 1000);
  const prefix = input.prefix ?? '';
  const delimiter = input.delimiter !== undefined && input.delimiter.length > 0 ? input.delimiter : undefined;
  let bound: ScanBound | undefined;
  if (input.continuationToken !== undefined) {
    bound = decodeToken(input.continuationToken);
    if (bound === undefined) return err({ code: 'invalid-key', message: 'the continuation token is not valid' });
  } else if (input.startAfter !== undefined && input.startAfter.length > 0) {
    bound = { key: input.startAfter, inclusive: false };
  }
  if (prefix.length > 0 && (bound === undefined || bound.key < prefix)) bound = { key: prefix, inclusive: true };
  const page: PrefixPage<T> = { contents: [], commonPrefixes: [], isTruncated: false };
  if (limit === 0) return ok(page);
  let count = 0;
  for (;;) {
    const entry = yield bound;
    if (entry === undefined || !entry.key.startsWith(prefix)) break;
    if (count === limit) {
      page.isTruncated = true;
      if (bound !== undefined) page.nextContinuationToken = encodeToken(bound);
      break;
    }
    count++;
    const at = delimiter === undefined ? -1 : entry.key.indexOf(delimiter, prefix.length);
    if (at >= 0 && delimiter !== undefined) {
      const common = entry.key.slice(0, at + delimiter.length);
      page.commonPrefixes.push(common);
      const next = prefixSuccessor(common);
      if (next === undefined) break;
      bound = { key: next, inclusive: true };
    } else {
      page.contents.push(entry);
      bound = { key: entry.key, inclusive: false };
    }
  }
  return ok(page);
}

/**
 * ListObjectsV2 over any ordered key index: prefix, delimiter grouping into common prefixes, `startAfter`,
 * opaque continuation tokens and `maxKeys` (0..1000, larger values clamp to 1000). A common prefix is skipped
 * with one seek, so a directory-like prefix holding millions of keys costs one step.
 */
export function listByPrefixOver<T extends { key: string }>(
  first: FirstKeyAt<T>,
  input: ListByPrefixInput,
): Result<PrefixPage<T>, BlobError> {
  const steps = listingSteps<T>(input);
  let step = steps.next();
  while (!step.done) step = steps.next(first(step.value));
  return step.value;
}

/** `listByPrefixOver` over an index answered asynchronously (a database). */
export async function listByPrefixOverAsync<T extends { key: string }>(
  first: (bound: ScanBound | undefined) => Promise<T | undefined>,
  input: ListByPrefixInput,
): Promise<Result<PrefixPage<T>, BlobError>> {
  const steps = listingSteps<T>(input);
  let step = steps.next();
  while (!step.done) step = steps.next(await first(step.value));
  return step.value;
}

/** Code-unit comparison, the order `listByPrefix` promises (JavaScript's `<` on strings). */
export function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
