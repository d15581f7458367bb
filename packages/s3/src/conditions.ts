import { type BlobMeta, type ByteRange, readRangeHeader } from '@kindgi/bindings';

/** What the conditional headers decide for a GET/HEAD. */
export type ConditionOutcome = 'proceed' | 'not-modified' | 'precondition-failed';

function etagList(value: string): string[] {
  return value.split(',').map((tag) => tag.trim().replace(/^W\//, '').replace(/^"|"$/g, ''));
}

function matches(value: string, etag: string): boolean {
  return etagList(value).some((tag) => tag === '*' || tag === etag);
}

function seconds(iso: string): number {
  return Math.floor(new Date(iso).getTime() / 1000);
}

function dateSeconds(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : Math.floor(ms / 1000);
}

/**
 * S3's conditional GET/HEAD rules: If-Match (412) wins over a failing If-Unmodified-Since, If-None-Match (304)
 * wins over If-Modified-Since; unparsable dates are ignored.
 */
export function evaluateConditions(header: (name: string) => string | undefined, meta: BlobMeta): ConditionOutcome {
  const modified = seconds(meta.createdAt);
  const ifMatch = header('if-match');
  if (ifMatch !== undefined) {
    if (!matches(ifMatch, meta.etag)) return 'precondition-failed';
  } else {
    const ius = dateSeconds(header('if-unmodified-since'));
    if (ius !== undefined && modified > ius) return 'precondition-failed';
  }
  const ifNoneMatch = header('if-none-match');
  if (ifNoneMatch !== undefined) {
    if (matches(ifNoneMatch, meta.etag)) return 'not-modified';
  } else {
    const ims = dateSeconds(header('if-modified-since'));
    if (ims !== undefined && modified <= ims) return 'not-modified';
  }
  return 'proceed';
}

/** A Range header's meaning against an object of `size` bytes. */
export type RangeOutcome = { kind: 'full' } | { kind: 'partial'; range: ByteRange } | { kind: 'unsatisfiable' };

/**
 * One `bytes=` range (the shared `readRangeHeader`): `a-b` (end clamped to the object), `a-`, `-n`. Start
 * past the end, `-0`, or any range on an empty object is unsatisfiable; several ranges or nonsense too
 * (416). As AWS S3 (and RFC 9110) do, a range whose end is before its start, and a range in a unit other
 * than `bytes`, is ignored: the whole object.
 */
export function evaluateRange(value: string | undefined, size: number): RangeOutcome {
  const read = readRangeHeader(value, size);
  return read.kind === 'whole' || read.kind === 'reversed' ? { kind: 'full' } : read;
}
