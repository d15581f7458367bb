import type { ByteRange } from '@kindgi/bindings';

/** What a `Range` header asks of an object of `size` bytes. */
export type RangeRequest = { kind: 'whole' } | { kind: 'partial'; range: ByteRange } | { kind: 'unsatisfiable' };

const SINGLE = /^bytes=(\d*)-(\d*)$/;

/**
 * Parses a single byte range (`N-M`, `N-`, `-M`). A header that is not a byte range at all is ignored
 * (RFC 9110: serve the whole object); several ranges, or one outside the object, are unsatisfiable.
 */
export function parseRange(header: string | undefined, size: number): RangeRequest {
  if (header === undefined) return { kind: 'whole' };
  const value = header.trim();
  if (!value.toLowerCase().startsWith('bytes=')) return { kind: 'whole' };
  if (value.includes(',')) return { kind: 'unsatisfiable' };
  const match = SINGLE.exec(value.replace(/\s+/g, '').replace(/^bytes=/i, 'bytes='));
  if (!match) return { kind: 'unsatisfiable' };
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return { kind: 'unsatisfiable' };
  if (size === 0) return { kind: 'unsatisfiable' };
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0) return { kind: 'unsatisfiable' };
    return { kind: 'partial', range: { start: Math.max(0, size - suffix), end: size - 1 } };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (start >= size || (last !== '' && Number(last) < start)) return { kind: 'unsatisfiable' };
  return { kind: 'partial', range: { start, end } };
}
