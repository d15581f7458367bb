import type { BlobChecksums } from '@kindgi/bindings';
import { err, ok, type Result } from '@kindgi/protocol';
import {
  CHECKSUM_ALGORITHMS,
  type ChecksumAlgorithm,
  checksumAlgorithmFromName,
  isWellFormedChecksum,
} from './checksums.js';
import { type S3Failure, s3Error } from './errors.js';
import type { ChunkSigning } from './sigv4/aws-chunked.js';
import type { VerifiedSigV4 } from './sigv4/verify.js';

/** The largest single PUT (and part) S3 accepts. */
export const MAX_PUT_BYTES = 5 * 1024 ** 3;

/** How a request body is to be read and what it must prove, decided from its headers before a byte is read. */
export interface BodyPlan {
  /** aws-chunked framing to strip (`trailing`: a `-TRAILER` payload mode); absent for a plain body. */
  chunked?: { signing?: ChunkSigning; signedTrailer: boolean; trailing: boolean };
  /** Decoded byte count, when the request declares it. */
  size?: number;
  /** sha256 hex the bytes must have (`x-amz-content-sha256`). */
  expectedHash?: string;
  /** MD5 hex from `Content-MD5`. */
  expectedMd5?: string;
  /** Checksums declared in headers, verified at the end. */
  headerChecksums: BlobChecksums;
  /** The algorithm the trailer will carry (`x-amz-trailer`). */
  trailerAlgorithm?: ChecksumAlgorithm;
  /**
   * The `x-amz-checksum-sha256` header became `expectedHash`: the storage hashes every body with SHA-256
   * anyway, so it checks this one too instead of a second pass here (a mismatch is still `BadDigest`).
   */
  sha256ByStorage?: boolean;
}

const SIGNED_STREAMING = 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD';
const SIGNED_STREAMING_TRAILER = 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER';
const UNSIGNED_STREAMING_TRAILER = 'STREAMING-UNSIGNED-PAYLOAD-TRAILER';

function lengthOf(text: string | undefined): number | undefined | 'bad' {
  if (text === undefined) return undefined;
  return /^\d{1,16}$/.test(text.trim()) ? Number(text.trim()) : 'bad';
}

function readChecksumHeaders(header: (name: string) => string | undefined): Result<BlobChecksums, S3Failure> {
  const found: BlobChecksums = {};
  let count = 0;
  for (const algorithm of CHECKSUM_ALGORITHMS) {
    const value = header(`x-amz-checksum-${algorithm}`);
    if (value === undefined) continue;
    if (!isWellFormedChecksum(algorithm, value.trim())) {
      return err(s3Error('InvalidRequest', `Value for x-amz-checksum-${algorithm} header is invalid.`));
    }
    found[algorithm] = value.trim();
    count++;
  }
  if (count > 1) return err(s3Error('InvalidRequest', 'Expecting a single x-amz-checksum- header.'));
  return ok(found);
}

function readContentMd5(header: (name: string) => string | undefined): Result<string | undefined, S3Failure> {
  const value = header('content-md5');
  if (value === undefined) return ok(undefined);
  const trimmed = value.trim();
  const bytes = Buffer.from(trimmed, 'base64');
  if (!/^[A-Za-z0-9+/]{22}==$/.test(trimmed) || bytes.length !== 16) return err(s3Error('InvalidDigest'));
  return ok(bytes.toString('hex'));
}

/** What the request's `x-amz-checksum-*` headers describe. */
export interface PlanOptions {
  /**
   * `'object'` where they carry the checksum of the object being made rather than of this body
   * (CompleteMultipartUpload): they are then left to the operation. Default `'body'`.
   */
  checksumHeaders?: 'body' | 'object';
}

/**
 * Decides how to read a PUT/UploadPart body from its payload-hash mode (hex sha256, `UNSIGNED-PAYLOAD` or one
 * of the aws-chunked `STREAMING-*` modes), its lengths, `Content-MD5` and `x-amz-checksum-*` / `x-amz-trailer`.
 */
export function planBody(
  header: (name: string) => string | undefined,
  auth: VerifiedSigV4,
  options: PlanOptions = {},
): Result<BodyPlan, S3Failure> {
  const mode = auth.claim.payloadHash;
  const md5 = readContentMd5(header);
  if (md5.kind === 'err') return md5;
  const bodyChecksums = options.checksumHeaders !== 'object';
  const checksums = bodyChecksums ? readChecksumHeaders(header) : ok({});
  if (checksums.kind === 'err') return checksums;
  const plan: BodyPlan = { headerChecksums: checksums.value };
  if (md5.value !== undefined) plan.expectedMd5 = md5.value;
  const contentLength = lengthOf(header('content-length'));
  if (contentLength === 'bad') return err(s3Error('InvalidArgument', 'Content-Length is not a length.'));

  const streaming = mode.startsWith('STREAMING-');
  if (streaming) {
    const signed = mode === SIGNED_STREAMING || mode === SIGNED_STREAMING_TRAILER;
    if (!signed && mode !== UNSIGNED_STREAMING_TRAILER) {
      return err(s3Error('NotImplemented', `The payload mode ${mode} is not supported.`));
    }
    if (signed && auth.claim.presigned) {
      return err(s3Error('InvalidRequest', 'Presigned requests cannot carry signed chunks.'));
    }
    const decoded = lengthOf(header('x-amz-decoded-content-length'));
    if (decoded === 'bad') return err(s3Error('InvalidArgument', 'x-amz-decoded-content-length is not a length.'));
    if (decoded !== undefined) plan.size = decoded;
    const signing = signed
      ? {
          signingKey: auth.signingKey,
          amzDate: auth.claim.amzDate,
          scope: auth.claim.scope,
          seedSignature: auth.claim.signature,
        }
      : undefined;
    plan.chunked = {
      signedTrailer: mode === SIGNED_STREAMING_TRAILER,
      trailing: mode !== SIGNED_STREAMING,
      ...(signing ? { signing } : {}),
    };
    const trailer = header('x-amz-trailer');
    if (trailer !== undefined) {
      if (mode === SIGNED_STREAMING)
        return err(s3Error('InvalidRequest', 'x-amz-trailer needs a -TRAILER payload mode.'));
      if (Object.keys(plan.headerChecksums).length > 0) {
        return err(s3Error('InvalidRequest', 'x-amz-trailer cannot be combined with an x-amz-checksum- header.'));
      }
      const algorithm = checksumAlgorithmFromName(trailer.trim());
      if (algorithm === undefined) return err(s3Error('InvalidRequest', `The trailer ${trailer} is not supported.`));
      plan.trailerAlgorithm = algorithm;
    }
  } else {
    if (mode !== 'UNSIGNED-PAYLOAD') {
      if (!/^[0-9a-fA-F]{64}$/.test(mode)) {
        return err(
          s3Error('InvalidArgument', 'x-amz-content-sha256 must be UNSIGNED-PAYLOAD, STREAMING-… or a sha256.'),
        );
      }
      plan.expectedHash = mode.toLowerCase();
    }
    if (header('x-amz-trailer') !== undefined) {
      return err(s3Error('InvalidRequest', 'x-amz-trailer needs an aws-chunked body.'));
    }
    // HTTP-chunked without a length is accepted as MinIO and Ceph RGW do: the payload hash still binds the
    // body, and the count is still held to MAX_PUT_BYTES while it streams.
    const chunkedTransfer = /(^|,)\s*chunked\s*$/i.test(header('transfer-encoding') ?? '');
    if (contentLength === undefined && !chunkedTransfer) return err(s3Error('MissingContentLength'));
    if (contentLength !== undefined) plan.size = contentLength;
  }
  if (plan.size !== undefined && plan.size > MAX_PUT_BYTES) return err(s3Error('EntityTooLarge'));
  const sdkAlgorithm = header('x-amz-sdk-checksum-algorithm');
  if (bodyChecksums && sdkAlgorithm !== undefined && !streaming && Object.keys(plan.headerChecksums).length === 0) {
    const named = checksumAlgorithmFromName(sdkAlgorithm.trim());
    // An algorithm we do not verify (say XXHASH64) is tolerated; one we do must come with its checksum.
    if (named !== undefined) {
      return err(
        s3Error('InvalidRequest', `x-amz-sdk-checksum-algorithm ${sdkAlgorithm} needs its x-amz-checksum- value.`),
      );
    }
  }
  return ok(plan);
}

/**
 * For a body the storage keeps (which hashes it with SHA-256 anyway): hands the SHA-256 checksum header to
 * that hash when no other hash claim contradicts it, so the bytes are hashed once.
 */
export function delegateSha256(plan: BodyPlan): BodyPlan {
  const base64 = plan.headerChecksums.sha256;
  if (base64 === undefined) return plan;
  const hex = Buffer.from(base64, 'base64').toString('hex');
  if (plan.expectedHash !== undefined && plan.expectedHash !== hex) return plan;
  return { ...plan, expectedHash: hex, sha256ByStorage: true };
}
