import { describe, expect, it } from 'vitest';
import {
  type BlobMeta,
  compareKeys,
  type ListByPrefixInput,
  listByPrefixOver,
  listByPrefixOverScan,
  type ScanBound,
} from '../src/index.js';

/** A sorted key index that answers scans like a database, counting what it reads. */
function index(keys: string[]) {
  const sorted = [...keys].sort(compareKeys);
  const entry = (key: string) => ({ key, meta: { key } as BlobMeta });
  const startOf = (bound: ScanBound | undefined) => {
    const at = sorted.findIndex((key) => bound === undefined || (bound.inclusive ? key >= bound.key : key > bound.key));
    return at < 0 ? sorted.length : at;
  };
  const reads = { scans: 0, rows: 0 };
  return {
    reads,
    first: (bound: ScanBound | undefined) => {
      const key = sorted[startOf(bound)];
      return key === undefined ? undefined : entry(key);
    },
    scan: async (from: ScanBound | undefined, limit: number) => {
      const rows = sorted.slice(startOf(from), startOf(from) + limit).map(entry);
      reads.scans++;
      reads.rows += rows.length;
      return rows;
    },
  };
}

function keys(): string[] {
  const out: string[] = [];
  for (let d = 0; d < 30; d++) for (let i = 0; i < 100; i++) out.push(`dir${String(d).padStart(2, '0')}/${i}`);
  for (let i = 0; i < 50; i++) out.push(`top${i}`, `small/${i % 3}/${i}`);
  out.push('\u{1F600}/emoji', '\uFFFF/top', 'é/accent', 'a', 'a/', 'a//b');
  return out;
}

describe('listByPrefixOverScan', () => {
  it('gives the pages and tokens of listByPrefixOver, page after page', async () => {
    const keyIndex = index(keys());
    const inputs: ListByPrefixInput[] = [];
    for (const prefix of [undefined, 'dir0', 'dir05/', 'small/', 'top', 'zz'])
      for (const delimiter of [undefined, '/'])
        for (const maxKeys of [0, 1, 2, 7, 33, 1000]) inputs.push({ prefix, delimiter, maxKeys });
    inputs.push({ startAfter: 'dir10/5', maxKeys: 40 }, { startAfter: 'a', delimiter: '/', maxKeys: 3 });
    for (const input of inputs) {
      let token: string | undefined;
      for (let page = 0; page < 400; page++) {
        const request = token === undefined ? input : { ...input, continuationToken: token };
        const scanned = await listByPrefixOverScan(keyIndex.scan, request);
        const stepped = listByPrefixOver(keyIndex.first, request);
        if (scanned.kind === 'err' || stepped.kind === 'err') throw new Error('listing failed');
        const { contents, ...rest } = stepped.value;
        expect(scanned.value).toEqual({ ...rest, contents: contents.map((entry) => entry.meta) });
        token = scanned.value.nextContinuationToken;
        if (token === undefined) break;
      }
    }
  });

  it('reads a page in one scan, and skips large common prefixes with short scans', async () => {
    const plain = index(keys());
    await listByPrefixOverScan(plain.scan, { prefix: 'dir', maxKeys: 1000 });
    expect(plain.reads).toEqual({ scans: 1, rows: 1001 });

    // Thirty directories of a hundred keys each: the first page-sized scan holds ten of them and the first key
    // of the eleventh; each directory after that, and the end, costs one short scan.
    const grouped = index(keys());
    const listed = await listByPrefixOverScan(grouped.scan, { prefix: 'dir', delimiter: '/' });
    expect(listed.kind === 'ok' && listed.value.commonPrefixes).toHaveLength(30);
    expect(grouped.reads).toEqual({ scans: 1 + 19 + 1, rows: 1001 + 20 * 32 });
  });

  it('refuses a token it did not issue before scanning', async () => {
    const keyIndex = index(keys());
    const listed = await listByPrefixOverScan(keyIndex.scan, { continuationToken: 'not-a-token' });
    expect(listed.kind === 'err' && listed.error.code).toBe('invalid-key');
    expect(keyIndex.reads.scans).toBe(0);
  });
});
