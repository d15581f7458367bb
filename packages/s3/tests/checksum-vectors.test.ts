// Published check values: each algorithm over the ASCII bytes "123456789" (the CRC catalogue's check
// input), and FIPS 180's "abc" examples for the SHA family, through the surface's own checksummers.
import { describe, expect, it } from 'vitest';
import {
  CHECKSUM_ALGORITHMS,
  type ChecksumAlgorithm,
  checksumTypeOf,
  createChecksummer,
  isWellFormedChecksum,
} from '../src/checksums.js';

const hex = (value: string) => Buffer.from(value, 'hex').toString('base64');

const VECTORS: Array<[ChecksumAlgorithm, string, string]> = [
  ['crc32', '123456789', 'cbf43926'],
  ['crc32c', '123456789', 'e3069283'],
  ['crc64nvme', '123456789', 'ae8b14860a799888'],
  ['sha1', 'abc', 'a9993e364706816aba3e25717850c26c9cd0d89d'],
  ['sha256', 'abc', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
];

async function digestOf(algorithm: ChecksumAlgorithm, pieces: Buffer[]): Promise<string> {
  const checksum = createChecksummer(algorithm);
  for (const piece of pieces) checksum.update(piece);
  return checksum.digestBase64();
}

describe('checksum test vectors', () => {
  it('covers every algorithm the surface verifies', () => {
    expect(VECTORS.map(([algorithm]) => algorithm)).toEqual([...CHECKSUM_ALGORITHMS]);
  });

  it.each(VECTORS)('%s of %j is the published check value', async (algorithm, input, expected) => {
    expect(await digestOf(algorithm, [Buffer.from(input)])).toBe(hex(expected));
    // Fed in pieces (one empty), the running state gives the same digest.
    const bytes = Buffer.from(input);
    expect(await digestOf(algorithm, [bytes.subarray(0, 1), Buffer.alloc(0), bytes.subarray(1)])).toBe(hex(expected));
    expect(isWellFormedChecksum(algorithm, hex(expected))).toBe(true);
  });

  it('the digest of nothing is the CRC of nothing (0) or the empty-input hash', async () => {
    expect(await digestOf('crc32', [])).toBe('AAAAAA==');
    expect(await digestOf('crc64nvme', [])).toBe('AAAAAAAAAAA=');
    expect(await digestOf('sha256', [])).toBe(hex('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'));
  });

  it('a CRC64NVME value is 8 bytes; a 4-byte one or bad base64 is malformed', () => {
    expect(isWellFormedChecksum('crc64nvme', hex('cbf43926'))).toBe(false);
    expect(isWellFormedChecksum('crc64nvme', 'not base64!')).toBe(false);
    expect(isWellFormedChecksum('crc32', hex('ae8b14860a799888'))).toBe(false);
  });

  it('a stored value with a part count is COMPOSITE, one without FULL_OBJECT', () => {
    expect(checksumTypeOf('AAAAAA==-3')).toBe('COMPOSITE');
    expect(checksumTypeOf('AAAAAA==')).toBe('FULL_OBJECT');
  });
});
