import { ok, type Result } from '@kindgi/protocol';
import { listByPrefixOverAsync, type ScanBound } from '../blob-rules/list-by-prefix.js';
import type { BlobError, BlobMeta, ListByPrefixInput, ListByPrefixResult } from '../blob-storage.js';

interface Entry {
  key: string;
  meta: BlobMeta;
}

/** Up to `limit` objects from `from` onwards (from the start when undefined), in code-unit key order. */
export type ScanObjects = (from: ScanBound | undefined, limit: number) => Promise<Entry[]>;

/** Rows read from one bound onwards: every key from there up to the last row, or to the end when `complete`. */
interface Segment {
  rows: Entry[];
  complete: boolean;
}

/** Rows read after a jump over a common prefix: enough to step over small ones without another scan. */
const AFTER_JUMP = 32;

function satisfies(key: string, bound: ScanBound | undefined): boolean {
  if (bound === undefined) return true;
  return bound.inclusive ? key >= bound.key : key > bound.key;
}

/** What a segment knows of the first key at `bound` (not before its start): an entry, `null` (the end), or nothing. */
function lookUp(segment: Segment, bound: ScanBound | undefined): Entry | null | undefined {
  let low = 0;
  let high = segment.rows.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (satisfies(segment.rows[middle]!.key, bound)) high = middle;
    else low = middle + 1;
  }
  return segment.rows[low] ?? (segment.complete ? null : undefined);
}

/** How many rows to read from `bound`: a page at first, twice as many when it continues a run of keys. */
function scanSize(segment: Segment | undefined, bound: ScanBound | undefined, page: number): number {
  if (segment === undefined) return page;
  const continues = bound !== undefined && !bound.inclusive && segment.rows.at(-1)?.key === bound.key;
  return Math.min(page, continues ? segment.rows.length * 2 : AFTER_JUMP);
}

/**
 * `listByPrefix` over a scan that reads many keys at once (a database query), with the shared rules
 * (`listByPrefixOver`: order, delimiters, continuation tokens). The rules ask for one key at a time, at
 * bounds that only increase; they are answered from the last segment read while it reaches, and a bound
 * beyond it costs one scan (a short one after skipping a common prefix).
 */
export async function listByPrefixOverScan(
  scan: ScanObjects,
  input: ListByPrefixInput,
): Promise<Result<ListByPrefixResult, BlobError>> {
  const page = Math.min(Math.max(Number.isInteger(input.maxKeys) ? (input.maxKeys as number) : 1000, 0), 1000) + 1;
  let segment: Segment | undefined;
  const first = async (bound: ScanBound | undefined): Promise<Entry | undefined> => {
    const known = segment === undefined ? undefined : lookUp(segment, bound);
    if (known !== undefined) return known ?? undefined;
    const size = scanSize(segment, bound, page);
    const rows = await scan(bound, size);
    segment = { rows, complete: rows.length < size };
    return rows[0];
  };
  const listed = await listByPrefixOverAsync(first, input);
  if (listed.kind === 'err') return listed;
  const { nextContinuationToken, contents, ...rest } = listed.value;
  return ok({
    ...rest,
    contents: contents.map((entry) => entry.meta),
    ...(nextContinuationToken !== undefined ? { nextContinuationToken } : {}),
  });
}
