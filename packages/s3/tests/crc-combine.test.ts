// The CRC combine arithmetic behind FULL_OBJECT multipart checksums, against the CRC of the concatenated
// bytes computed directly, for split points and part layouts drawn from a fixed-seed generator.

import { crc32 } from 'node:zlib';
import { Crc32c } from '@aws-crypto/crc32c';
import { Crc64Nvme } from '@aws-sdk/crc64-nvme';
import { describe, expect, it } from 'vitest';
import { fullObjectChecksum } from '../src/checksums.js';
import { type CombinableCrc, combineCrc, combineCrcs } from '../src/crc-combine.js';

/** A small deterministic generator (xorshift32), so a failing layout can be replayed. */
function generator(seed: number): (below: number) => number {
  let state = seed >>> 0 || 1;
  return (below) => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state % below;
  };
}

function bytesFrom(next: (below: number) => number, length: number): Buffer {
  const out = Buffer.alloc(length);
  for (let i = 0; i < length; i++) out[i] = next(256);
  return out;
}

async function crcOf(algorithm: CombinableCrc, bytes: Buffer): Promise<bigint> {
  if (algorithm === 'crc32') return BigInt(crc32(bytes));
  if (algorithm === 'crc32c') return BigInt(new Crc32c().update(bytes).digest());
  const state = new Crc64Nvme();
  state.update(bytes);
  return BigInt(`0x${Buffer.from(await state.digest()).toString('hex')}`);
}

const ALGORITHMS: CombinableCrc[] = ['crc32', 'crc32c', 'crc64nvme'];
const WIDTH: Record<CombinableCrc, number> = { crc32: 4, crc32c: 4, crc64nvme: 8 };

describe.each(ALGORITHMS)('%s combine', (algorithm) => {
  it('crc(A‖B) from crc(A), crc(B) and |B| for random split points, the ends included', async () => {
    const next = generator(0x5eed + algorithm.length);
    const whole = bytesFrom(next, 70_001);
    const expected = await crcOf(algorithm, whole);
    const splits = [0, 1, whole.length - 1, whole.length, ...Array.from({ length: 24 }, () => next(whole.length))];
    for (const split of splits) {
      const a = whole.subarray(0, split);
      const b = whole.subarray(split);
      const combined = combineCrc(algorithm, await crcOf(algorithm, a), await crcOf(algorithm, b), b.length);
      expect({ split, combined }).toEqual({ split, combined: expected });
    }
  });

  it('folds many parts of random sizes (empty ones too) into the CRC of their concatenation', async () => {
    const next = generator(0xc0ffee);
    for (let round = 0; round < 6; round++) {
      const parts = Array.from({ length: 1 + next(12) }, () => bytesFrom(next, next(5) === 0 ? 0 : next(40_000)));
      const pieces = await Promise.all(
        parts.map(async (part) => ({ crc: await crcOf(algorithm, part), length: part.length })),
      );
      expect(combineCrcs(algorithm, pieces)).toBe(await crcOf(algorithm, Buffer.concat(parts)));
    }
  });

  it('gives the full-object base64 value from stored part values and sizes', async () => {
    const next = generator(42);
    const parts = [bytesFrom(next, 9000), bytesFrom(next, 9000), bytesFrom(next, 123)];
    const encode = (crc: bigint) =>
      Buffer.from(crc.toString(16).padStart(WIDTH[algorithm] * 2, '0'), 'hex').toString('base64');
    const stored = await Promise.all(
      parts.map(async (part) => ({ checksum: encode(await crcOf(algorithm, part)), size: part.length })),
    );
    expect(fullObjectChecksum(algorithm, stored)).toBe(encode(await crcOf(algorithm, Buffer.concat(parts))));
    expect(fullObjectChecksum(algorithm, [...stored, { checksum: undefined, size: 1 }])).toBeUndefined();
  });
});

describe('combine over large lengths', () => {
  it('one shift past n bytes equals two shifts past n/2 (exact at a 5 GiB part, beyond 2^32 bits)', async () => {
    const a = await crcOf('crc64nvme', Buffer.from('kindgi'));
    const n = 5 * 1024 ** 3;
    const half = combineCrc('crc64nvme', a, 0n, n / 2);
    expect(combineCrc('crc64nvme', half, 0n, n / 2)).toBe(combineCrc('crc64nvme', a, 0n, n));
    expect(combineCrc('crc64nvme', a, 0n, n)).not.toBe(combineCrc('crc64nvme', a, 0n, n - 1));
  });
});
