import type { ByteRange } from './blob-storage.js';

/** What a `Range` header asks of an object of `size` bytes. */
export type RangeHeader =
  /** No header, or a unit other than `bytes`: the whole object (RFC 9110 says to ignore such a header). */
  | { kind: 'whole' }
  | { kind: 'partial'; range: ByteRange }
  /**
   * `bytes=N-M` with `M < N`. RFC 9110 and AWS S3 ignore it (the whole object); the REST API documents
   * 416 for it. Each surface decides.
   */
  | { kind: 'reversed' }
  /** Several ranges, a malformed one, a start at or past the end, `-0`, or any range of an empty object. */
  | { kind: 'unsatisfiable' };

const BYTES_UNIT = /^\s*bytes\s*=/i;
const SINGLE_RANGE = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i;

/**
 * The one `Range` parser of the S3 and REST surfaces: one `bytes=` range, `a-b` (the end clamped to the
 * last byte), `a-` or `-n` (the last `n` bytes).
 *
 * @example
 * readRangeHeader('bytes=2-', 10); // { kind: 'partial', range: { start: 2, end: 9 } }
 * readRangeHeader('bytes=5-2', 10); // { kind: 'reversed' }
 */
export function readRangeHeader(value: string | undefined, size: number): RangeHeader {
  if (value === undefined || !BYTES_UNIT.test(value)) return { kind: 'whole' };
  const match = SINGLE_RANGE.exec(value);
  if (!match) return { kind: 'unsatisfiable' };
  const [, startText = '', endText = ''] = match;
  if (startText === '' && endText === '') return { kind: 'unsatisfiable' };
  if (startText === '') {
    const suffix = Number(endText);
    if (suffix === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'partial', range: { start: Math.max(0, size - suffix), end: size - 1 } };
  }
  const start = Number(startText);
  if (endText !== '' && Number(endText) < start) return { kind: 'reversed' };
  if (start >= size) return { kind: 'unsatisfiable' };
  const end = endText === '' ? size - 1 : Math.min(Number(endText), size - 1);
  return { kind: 'partial', range: { start, end } };
}
