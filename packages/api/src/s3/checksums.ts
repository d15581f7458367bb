import { createHash, type Hash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { Crc32c } from '@aws-crypto/crc32c';
import type { BlobChecksums } from '@kindgi/bindings';

/** The flexible-checksum algorithms S3 clients send as `x-amz-checksum-<name>`. */
export type ChecksumAlgorithm = keyof BlobChecksums;

/** Every algorithm we verify, in header-name form. */
export const CHECKSUM_ALGORITHMS: readonly ChecksumAlgorithm[] = ['crc32', 'crc32c', 'sha1', 'sha256'];

/** An incremental checksum producing S3's base64 form. */
export interface Checksummer {
  update(chunk: Uint8Array): void;
  digestBase64(): string;
}

function crcToBase64(value: number): string {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(value >>> 0);
  return out.toString('base64');
}

/** A running checksum for one algorithm; CRC32 uses zlib's native code, CRC32C a maintained package. */
export function createChecksummer(algorithm: ChecksumAlgorithm): Checksummer {
  switch (algorithm) {
    case 'crc32': {
      let value = 0;
      return {
        update: (chunk) => {
          value = crc32(chunk, value);
        },
        digestBase64: () => crcToBase64(value),
      };
    }
    case 'crc32c': {
      const state = new Crc32c();
      return { update: (chunk) => void state.update(chunk), digestBase64: () => crcToBase64(state.digest()) };
    }
    case 'sha1':
    case 'sha256': {
      const hash: Hash = createHash(algorithm);
      return { update: (chunk) => void hash.update(chunk), digestBase64: () => hash.digest('base64') };
    }
  }
}

/** The algorithm named by `x-amz-checksum-<name>` or `x-amz-sdk-checksum-algorithm`, if we support it. */
export function checksumAlgorithmFromName(name: string): ChecksumAlgorithm | undefined {
  const lower = name.toLowerCase().replace(/^x-amz-checksum-/, '');
  return (CHECKSUM_ALGORITHMS as readonly string[]).includes(lower) ? (lower as ChecksumAlgorithm) : undefined;
}

const DIGEST_BYTES: Record<ChecksumAlgorithm, number> = { crc32: 4, crc32c: 4, sha1: 20, sha256: 32 };

/** True when `value` is base64 of a digest of the right length for the algorithm. */
export function isWellFormedChecksum(algorithm: ChecksumAlgorithm, value: string): boolean {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(value) || value.length % 4 !== 0) return false;
  return Buffer.from(value, 'base64').length === DIGEST_BYTES[algorithm];
}

/**
 * S3's composite checksum of a multipart object: the algorithm over the concatenated binary part digests,
 * base64, then `-<part count>`. `undefined` when a part lacks a well-formed value for the algorithm.
 */
export function compositeChecksum(
  algorithm: ChecksumAlgorithm,
  partValues: ReadonlyArray<string | undefined>,
): string | undefined {
  const checksum = createChecksummer(algorithm);
  for (const value of partValues) {
    if (value === undefined || !isWellFormedChecksum(algorithm, value)) return undefined;
    checksum.update(Buffer.from(value, 'base64'));
  }
  return `${checksum.digestBase64()}-${partValues.length}`;
}
