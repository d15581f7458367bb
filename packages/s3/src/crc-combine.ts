/**
 * The CRC of a concatenation from the CRCs of its pieces, for S3's FULL_OBJECT multipart checksums: the
 * parts' CRCs are all a server keeps, so the whole object's CRC has to come from them and their lengths.
 *
 * The arithmetic is over GF(2) polynomials modulo the CRC's generator, in the reflected bit order these CRCs
 * use (the most significant bit is the x^0 coefficient). For a CRC whose initial value equals its final XOR
 * (all three here use all ones for both), crc(A‖B) = crc(A)·x^(8·|B|) ⊕ crc(B) (mod P): the conditioning
 * terms of A and B cancel, so no separate correction is needed.
 */

/** The CRCs S3 can combine into a full-object value. */
export type CombinableCrc = 'crc32' | 'crc32c' | 'crc64nvme';

interface CrcShape {
  width: number;
  /** The generator without its x^width term, bit-reflected. */
  reflectedPoly: bigint;
}

const SHAPES: Record<CombinableCrc, CrcShape> = {
  crc32: { width: 32, reflectedPoly: 0xedb88320n },
  crc32c: { width: 32, reflectedPoly: 0x82f63b78n },
  crc64nvme: { width: 64, reflectedPoly: 0x9a6c9329ac4bc9b5n },
};

/** The product a·b mod P, both in reflected form. */
function multiplyModP(shape: CrcShape, a: bigint, b: bigint): bigint {
  let product = 0n;
  let term = 1n << BigInt(shape.width - 1);
  let factor = b;
  let rest = a;
  while (rest !== 0n) {
    if ((rest & term) !== 0n) {
      product ^= factor;
      rest ^= term;
    }
    term >>= 1n;
    // factor·x: one step toward higher powers, reducing the x^width term that falls off.
    factor = (factor & 1n) === 0n ? factor >> 1n : (factor >> 1n) ^ shape.reflectedPoly;
  }
  return product;
}

// x^(2^k) mod P for k = 0, 1, …, grown on demand: an exponent's binary digits pick which to multiply.
const POWERS = new Map<CombinableCrc, bigint[]>();

function powerOfTwoExponent(algorithm: CombinableCrc, k: number): bigint {
  const shape = SHAPES[algorithm];
  let table = POWERS.get(algorithm);
  if (table === undefined) {
    table = [1n << BigInt(shape.width - 2)];
    POWERS.set(algorithm, table);
  }
  while (table.length <= k) {
    const last = table[table.length - 1]!;
    table.push(multiplyModP(shape, last, last));
  }
  return table[k]!;
}

/** x^(8·bytes) mod P: the shift that moves a CRC past `bytes` bytes. */
function shiftForBytes(algorithm: CombinableCrc, bytes: number): bigint {
  const shape = SHAPES[algorithm];
  let result = 1n << BigInt(shape.width - 1);
  // 8·bytes = bytes·2^3, so the digits of `bytes` start at exponent 2^3.
  let k = 3;
  for (let rest = bytes; rest > 0; rest = Math.floor(rest / 2), k++) {
    if (rest % 2 === 1) result = multiplyModP(shape, powerOfTwoExponent(algorithm, k), result);
  }
  return result;
}

/**
 * The CRC of A‖B from crc(A), crc(B) and B's length in bytes. CRCs are the plain register values
 * (`0xCBF43926n` for CRC-32 of "123456789"), not byte-swapped.
 */
export function combineCrc(algorithm: CombinableCrc, crcA: bigint, crcB: bigint, lengthB: number): bigint {
  return multiplyModP(SHAPES[algorithm], shiftForBytes(algorithm, lengthB), crcA) ^ crcB;
}

/** The CRC of pieces laid end to end, from each piece's CRC and length; the CRC of nothing (0) for none. */
export function combineCrcs(algorithm: CombinableCrc, pieces: ReadonlyArray<{ crc: bigint; length: number }>): bigint {
  // Parts mostly share one size, so their shifts repeat: computing each once keeps 10,000 parts cheap.
  const shifts = new Map<number, bigint>();
  let total = 0n;
  for (const { crc, length } of pieces) {
    let shift = shifts.get(length);
    if (shift === undefined) {
      shift = shiftForBytes(algorithm, length);
      shifts.set(length, shift);
    }
    total = multiplyModP(SHAPES[algorithm], shift, total) ^ crc;
  }
  return total;
}
