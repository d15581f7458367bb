import type { BlobChecksums } from '@kindgi/bindings';
import { type BodyPlan, MAX_PUT_BYTES } from './body-plan.js';
import {
  CHECKSUM_ALGORITHMS,
  type ChecksumAlgorithm,
  type Checksummer,
  checksumAlgorithmFromName,
  createChecksummer,
  isWellFormedChecksum,
} from './checksums.js';
import { S3BodyError, s3Error } from './errors.js';
import { AwsChunkedDecoder } from './sigv4/aws-chunked.js';

/** A verifying body: the decoded bytes, and the checksums it proved once it ended. */
export interface VerifiedBody {
  bytes: AsyncIterable<Uint8Array>;
  /** Filled while the body streams; complete once `bytes` ended without error. */
  checksums: BlobChecksums;
}

function toBuffer(chunk: Uint8Array): Buffer {
  return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

function mismatch(algorithm: ChecksumAlgorithm): S3BodyError {
  return new S3BodyError(
    s3Error('BadDigest', `The ${algorithm.toUpperCase()} you specified did not match the calculated checksum.`),
  );
}

/**
 * Wraps a raw request body: strips aws-chunked framing (verifying chunk and trailer signatures), counts the
 * decoded bytes against the declared length and verifies header or trailer checksums. Any failure makes the
 * iterator throw an `S3BodyError` after the last byte at the latest, so the binding stores nothing.
 */
export function verifiedBody(source: AsyncIterable<Uint8Array>, plan: BodyPlan): VerifiedBody {
  const checksums: BlobChecksums = { ...plan.headerChecksums };
  const running = new Map<ChecksumAlgorithm, Checksummer>();
  for (const algorithm of CHECKSUM_ALGORITHMS) {
    if (algorithm === 'sha256' && plan.sha256ByStorage) continue;
    if (plan.headerChecksums[algorithm] !== undefined || plan.trailerAlgorithm === algorithm) {
      running.set(algorithm, createChecksummer(algorithm));
    }
  }
  // A trailer not declared in x-amz-trailer names its algorithm only at the end; a -TRAILER mode without the
  // declaration hashes every algorithm it could name (the other aws-chunked mode carries no trailers).
  if (plan.chunked?.trailing && plan.trailerAlgorithm === undefined && Object.keys(plan.headerChecksums).length === 0) {
    for (const algorithm of CHECKSUM_ALGORITHMS) running.set(algorithm, createChecksummer(algorithm));
  }
  const decoder = plan.chunked
    ? new AwsChunkedDecoder({
        signedTrailer: plan.chunked.signedTrailer,
        ...(plan.chunked.signing ? { signing: plan.chunked.signing } : {}),
      })
    : undefined;

  async function* run(): AsyncGenerator<Uint8Array> {
    let count = 0;
    const tooLong = () =>
      new S3BodyError(s3Error('IncompleteBody', `The body is longer than the declared ${plan.size} bytes.`));
    // Pieces go on as they arrive: the storage batches them for its writes and hash workers.
    for await (const chunk of source) {
      const pieces = decoder ? decoder.push(toBuffer(chunk)) : [toBuffer(chunk)];
      for (const piece of pieces) {
        if (piece.length === 0) continue;
        count += piece.length;
        if (plan.size !== undefined && count > plan.size) throw tooLong();
        if (count > MAX_PUT_BYTES) throw new S3BodyError(s3Error('EntityTooLarge'));
        for (const checksum of running.values()) checksum.update(piece);
        yield piece;
      }
    }
    const trailers = decoder?.finish();
    if (plan.size !== undefined && count !== plan.size) {
      throw new S3BodyError(s3Error('IncompleteBody', `Received ${count} of the declared ${plan.size} bytes.`));
    }
    for (const [algorithm, value] of Object.entries(plan.headerChecksums) as Array<[ChecksumAlgorithm, string]>) {
      const checksum = running.get(algorithm);
      // A checksum left to the storage (sha256ByStorage) is checked there, before the object is visible.
      if (checksum !== undefined && (await checksum.digestBase64()) !== value) throw mismatch(algorithm);
    }
    if (trailers) await verifyTrailers(trailers);
  }

  async function verifyTrailers(trailers: Map<string, string>): Promise<void> {
    const named = [...trailers.keys()].filter((name) => name.startsWith('x-amz-checksum-'));
    if (plan.trailerAlgorithm !== undefined && !trailers.has(`x-amz-checksum-${plan.trailerAlgorithm}`)) {
      throw new S3BodyError(
        s3Error('MalformedTrailerError', `The x-amz-checksum-${plan.trailerAlgorithm} trailer is missing.`),
      );
    }
    for (const name of named) {
      const algorithm = checksumAlgorithmFromName(name);
      if (algorithm === undefined) continue;
      const value = trailers.get(name)!;
      if (!isWellFormedChecksum(algorithm, value)) {
        throw new S3BodyError(s3Error('InvalidRequest', `Value for ${name} trailing header is invalid.`));
      }
      const checksum = running.get(algorithm);
      if (checksum === undefined) continue;
      if ((await checksum.digestBase64()) !== value) throw mismatch(algorithm);
      checksums[algorithm] = value;
    }
  }

  return { bytes: run(), checksums };
}
