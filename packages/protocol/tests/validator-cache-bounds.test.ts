import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { ValidatorCache } from '../src/index.js';

const withId = (i: number) => ({
  $id: `https://example.com/schemas/s${i}`,
  type: 'object',
  properties: { [`p${i}`]: { type: 'string', pattern: `^a${i}$` } },
});

describe('ValidatorCache bounds', () => {
  it('compiles a schema with an $id again after evicting it', () => {
    const cache = new ValidatorCache({ maxEntries: 2 });
    for (let i = 0; i < 5; i++) expect(cache.get(withId(i), 'input').kind).toBe('ok');
    expect(cache.size('input')).toBe(2);
    const again = cache.get(withId(0), 'input');
    expect(again.kind === 'ok' ? 'ok' : again.error).toBe('ok');
    if (again.kind === 'ok') {
      expect(again.value({ p0: 'a0' }).kind).toBe('ok');
      expect(again.value({ p0: 'b' }).kind).toBe('err');
    }
  });

  it('holds on to memory for at most its entries, not for every schema ever compiled', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const cache = new ValidatorCache({ maxEntries: 10 });
    for (let i = 0; i < 100; i++) cache.get(withId(i), 'output');
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 100; i < 3_100; i++) expect(cache.get(withId(i), 'output').kind).toBe('ok');
    gc();
    const grownMb = (process.memoryUsage().heapUsed - before) / 1e6;
    // Ajv keeping all 3,000 grew the heap by about 15 MB; a cache bounded at 10 stays within a few.
    expect(grownMb).toBeLessThan(6);
    expect(cache.size('output')).toBe(10);
  });
});
