import { createHash, type Hash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { Crc32c } from '@aws-crypto/crc32c';
import { Crc64Nvme } from '@aws-sdk/crc64-nvme';
import type { BlobChecksums, BlobChecksumType } from '@kindgi/bindings';
import { type CombinableCrc, combineCrcs } from './crc-combine.js';

/** The flexible-checksum algorithms S3 clients send as `x-amz-checksum-<name>`. */
export type ChecksumAlgorithm = keyof BlobChecksums;

/** Every algorithm we verify, in header-name form, in the order S3 lists their elements. */
export const CHECKSUM_ALGORITHMS: readonly ChecksumAlgorithm[] = ['crc32', 'crc32c', 'crc64nvme', 'sha1', 'sha256'];

/** The checksum types of `x-amz-checksum-type`. */
export const CHECKSUM_TYPES: readonly BlobChecksumType[] = ['COMPOSITE', 'FULL_OBJECT'];

/** An incremental checksum producing S3's base64 form. */
export interface Checksummer {
  update(chunk: Uint8Array): void;
  /** The digest, base64; asynchronous because the CRC64NVME library answers so. */
  digestBase64(): Promise<string>;
}

function crcToBase64(value: number): string {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(value >>> 0);
  return out.toString('base64');
}

/**
 * A running checksum for one algorithm: CRC32 through zlib's native code, CRC32C and CRC64NVME through
 * maintained packages, SHA through node:crypto.
 */
export function createChecksummer(algorithm: ChecksumAlgorithm): Checksummer {
  switch (algorithm) {
    case 'crc32': {
      let value = 0;
      return {
        update: (chunk) => {
          value = crc32(chunk, value);
        },
        digestBase64: async () => crcToBase64(value),
      };
    }
    case 'crc32c': {
      const state = new Crc32c();
      return { update: (chunk) => void state.update(chunk), digestBase64: async () => crcToBase64(state.digest()) };
    }
    case 'crc64nvme': {
      const state = new Crc64Nvme();
      return {
        update: (chunk) => state.update(chunk),
        digestBase64: async () => Buffer.from(await state.digest()).toString('base64'),
      };
    }
    case 'sha1':
    case 'sha256': {
      const hash: Hash = createHash(algorithm);
      return { update: (chunk) => void hash.update(chunk), digestBase64: async () => hash.digest('base64') };
    }
  }
}

/** The algorithm named by `x-amz-checksum-<name>` or `x-amz-sdk-checksum-algorithm`, if we support it. */
export function checksumAlgorithmFromName(name: string): ChecksumAlgorithm | undefined {
  const lower = name.toLowerCase().replace(/^x-amz-checksum-/, '');
  return (CHECKSUM_ALGORITHMS as readonly string[]).includes(lower) ? (lower as ChecksumAlgorithm) : undefined;
}

/** The type named by `x-amz-checksum-type` (case as sent by SDKs: upper), if it is one. */
export function checksumTypeFromName(name: string): BlobChecksumType | undefined {
  const upper = name.trim().toUpperCase();
  return (CHECKSUM_TYPES as readonly string[]).includes(upper) ? (upper as BlobChecksumType) : undefined;
}

const DIGEST_BYTES: Record<ChecksumAlgorithm, number> = { crc32: 4, crc32c: 4, crc64nvme: 8, sha1: 20, sha256: 32 };

/** True when `value` is base64 of a digest of the right length for the algorithm. */
export function isWellFormedChecksum(algorithm: ChecksumAlgorithm, value: string): boolean {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(value) || value.length % 4 !== 0) return false;
  return Buffer.from(value, 'base64').length === DIGEST_BYTES[algorithm];
}

/** True for the CRCs whose part values combine into a whole-object value (FULL_OBJECT multipart uploads). */
export function supportsFullObject(algorithm: ChecksumAlgorithm): algorithm is CombinableCrc {
  return algorithm === 'crc32' || algorithm === 'crc32c' || algorithm === 'crc64nvme';
}

/** The type a multipart upload gets when it names only an algorithm: CRC64NVME exists only as FULL_OBJECT. */
export function defaultChecksumType(algorithm: ChecksumAlgorithm): BlobChecksumType {
  return algorithm === 'crc64nvme' ? 'FULL_OBJECT' : 'COMPOSITE';
}

/** The type of a stored object checksum: a composite carries its part count (`…-N`), a whole-object one not. */
export function checksumTypeOf(value: string): BlobChecksumType {
  return /-\d+$/.test(value) ? 'COMPOSITE' : 'FULL_OBJECT';
}

/** The type of an object's stored checksums (they share one), or `undefined` when it has none. */
export function storedChecksumType(checksums: BlobChecksums | undefined): BlobChecksumType | undefined {
  const value = CHECKSUM_ALGORITHMS.map((algorithm) => checksums?.[algorithm]).find((found) => found !== undefined);
  return value === undefined ? undefined : checksumTypeOf(value);
}

/**
 * S3's composite checksum of a multipart object: the algorithm over the concatenated binary part digests,
 * base64, then `-<part count>`. `undefined` when a part lacks a well-formed value for the algorithm.
 */
export async function compositeChecksum(
  algorithm: ChecksumAlgorithm,
  partValues: ReadonlyArray<string | undefined>,
): Promise<string | undefined> {
  const checksum = createChecksummer(algorithm);
  for (const value of partValues) {
    if (value === undefined || !isWellFormedChecksum(algorithm, value)) return undefined;
    checksum.update(Buffer.from(value, 'base64'));
  }
  return `${await checksum.digestBase64()}-${partValues.length}`;
}

/**
 * The FULL_OBJECT checksum of a multipart object: the CRC of all its bytes, combined from each part's CRC
 * (base64, as stored) and size. `undefined` when a part lacks a well-formed value for the algorithm.
 */
export function fullObjectChecksum(
  algorithm: CombinableCrc,
  parts: ReadonlyArray<{ checksum: string | undefined; size: number }>,
): string | undefined {
  const pieces: Array<{ crc: bigint; length: number }> = [];
  for (const { checksum, size } of parts) {
    if (checksum === undefined || !isWellFormedChecksum(algorithm, checksum)) return undefined;
    pieces.push({ crc: BigInt(`0x${Buffer.from(checksum, 'base64').toString('hex')}`), length: size });
  }
  const bytes = DIGEST_BYTES[algorithm];
  const hex = combineCrcs(algorithm, pieces)
    .toString(16)
    .padStart(bytes * 2, '0');
  return Buffer.from(hex, 'hex').toString('base64');
}
