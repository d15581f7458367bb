import {
  type BlobError,
  type BlobMeta,
  type ListByPrefixInput,
  type ListByPrefixResult,
  listByPrefixOver,
  type ScanBound,
} from '@kindgi/bindings';
import { ok, type Result } from '@kindgi/protocol';
import { parseMeta, type Queryable, sortKey } from './sql.js';

interface Entry {
  key: string;
  meta: string;
}

/** Rows read from one bound onwards: every key from `from` up to the last row, or to the end when `complete`. */
interface Segment {
  from: ScanBound | undefined;
  rows: Entry[];
  complete: boolean;
}

function satisfies(key: string, bound: ScanBound | undefined): boolean {
  if (bound === undefined) return true;
  return bound.inclusive ? key >= bound.key : key > bound.key;
}

/** True when every key a scan from `bound` can return is also one a scan from `from` returns. */
function atOrAfter(bound: ScanBound | undefined, from: ScanBound | undefined): boolean {
  if (from === undefined) return true;
  if (bound === undefined) return false;
  if (bound.key !== from.key) return bound.key > from.key;
  return from.inclusive || !bound.inclusive;
}

/** The answer a segment gives for `bound`: an entry, `null` for "no more keys", `undefined` when unknown. */
function answer(segment: Segment, bound: ScanBound | undefined): Entry | null | undefined {
  if (!atOrAfter(bound, segment.from)) return undefined;
  // Rows are in key order, so the first row satisfying the bound is found by bisection.
  let low = 0;
  let high = segment.rows.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (satisfies(segment.rows[middle]!.key, bound)) high = middle;
    else low = middle + 1;
  }
  const found = segment.rows[low];
  if (found !== undefined) return found;
  return segment.complete ? null : undefined;
}

const MISS = Symbol('segment-miss');

async function readSegment(
  db: Queryable,
  tenantId: string,
  bucket: string,
  from: ScanBound | undefined,
  size: number,
): Promise<Segment> {
  const op = from === undefined || from.inclusive ? '>=' : '>';
  const { rows } = await db.query<{ key_sort: Buffer; meta: string }>(
    `SELECT key_sort, meta FROM blobs WHERE tenant_id = $1 AND bucket = $2 AND key_sort ${op} $3
     ORDER BY key_sort LIMIT $4`,
    [tenantId, bucket, sortKey(from?.key ?? ''), size],
  );
  return {
    from,
    rows: rows.map((row) => ({ key: Buffer.from(row.key_sort).swap16().toString('utf16le'), meta: row.meta })),
    complete: rows.length < size,
  };
}

/**
 * ListObjectsV2 over the `blobs` table with the shared rules (`listByPrefixOver`: order, delimiters,
 * continuation tokens), so a page and its token are the ones blob-fs would give. The rules ask for one
 * key at a time; keys are read a page-sized segment at a time, and only a bound outside every segment
 * read so far (after skipping a large common prefix) costs another query.
 */
export async function listObjectsByPrefix(
  db: Queryable,
  tenantId: string,
  bucket: string,
  input: ListByPrefixInput,
): Promise<Result<ListByPrefixResult, BlobError>> {
  const size = Math.min(Math.max(Number.isInteger(input.maxKeys) ? (input.maxKeys as number) : 1000, 0), 1000) + 1;
  const segments: Segment[] = [];
  for (;;) {
    let missing: ScanBound | undefined;
    const first = (bound: ScanBound | undefined): Entry | undefined => {
      for (const segment of segments) {
        const found = answer(segment, bound);
        if (found !== undefined) return found ?? undefined;
      }
      missing = bound;
      throw MISS;
    };
    let page: ReturnType<typeof listByPrefixOver<Entry>>;
    try {
      page = listByPrefixOver(first, input);
    } catch (cause) {
      if (cause !== MISS) throw cause;
      segments.push(await readSegment(db, tenantId, bucket, missing, size));
      continue;
    }
    if (page.kind === 'err') return page;
    const { nextContinuationToken, contents, ...rest } = page.value;
    const metas: BlobMeta[] = contents.map((entry) => parseMeta(entry.meta));
    return ok({
      ...rest,
      contents: metas,
      ...(nextContinuationToken !== undefined ? { nextContinuationToken } : {}),
    });
  }
}
