import type { BlobChecksums, BlobChecksumType, ListPartsResult, PartInfo } from '@kindgi/bindings';
import { err, ok, type Result } from '@kindgi/protocol';
import {
  CHECKSUM_ALGORITHMS,
  type ChecksumAlgorithm,
  checksumAlgorithmFromName,
  checksumTypeFromName,
  compositeChecksum,
  defaultChecksumType,
  fullObjectChecksum,
  isWellFormedChecksum,
  supportsFullObject,
} from '../checksums.js';
import { type S3Failure, s3Error } from '../errors.js';
import type { CompletionPart } from '../xml.js';

type Header = (name: string) => string | undefined;

/** The checksum a multipart upload is created with: its algorithm and how part checksums make the object's. */
export interface UploadChecksum {
  algorithm: ChecksumAlgorithm;
  type: BlobChecksumType;
}

function typeMismatch(type: BlobChecksumType, algorithm: ChecksumAlgorithm): S3Failure {
  return s3Error(
    'InvalidRequest',
    `The ${type} checksum type cannot be used with the ${algorithm.toUpperCase()} checksum algorithm.`,
  );
}

function readType(header: Header): Result<BlobChecksumType | undefined, S3Failure> {
  const name = header('x-amz-checksum-type');
  if (name === undefined) return ok(undefined);
  const type = checksumTypeFromName(name);
  if (type === undefined) return err(s3Error('InvalidRequest', 'Value for x-amz-checksum-type header is invalid.'));
  return ok(type);
}

/** The type an algorithm gets (`requested`, else its default), refused where S3 cannot make it from parts. */
function typeFor(
  algorithm: ChecksumAlgorithm,
  requested: BlobChecksumType | undefined,
): Result<BlobChecksumType, S3Failure> {
  const type = requested ?? defaultChecksumType(algorithm);
  if (type === 'FULL_OBJECT' && !supportsFullObject(algorithm)) return err(typeMismatch(type, algorithm));
  if (type === 'COMPOSITE' && algorithm === 'crc64nvme') return err(typeMismatch(type, algorithm));
  return ok(type);
}

/**
 * CreateMultipartUpload's `x-amz-checksum-algorithm` and `x-amz-checksum-type`: an unknown algorithm, a type
 * without an algorithm, FULL_OBJECT with SHA1/SHA256 or COMPOSITE with CRC64NVME are `InvalidRequest`.
 */
export function readUploadChecksum(header: Header): Result<UploadChecksum | undefined, S3Failure> {
  const type = readType(header);
  if (type.kind === 'err') return type;
  const name = header('x-amz-checksum-algorithm');
  if (name === undefined) {
    if (type.value === undefined) return ok(undefined);
    return err(s3Error('InvalidRequest', 'x-amz-checksum-type needs x-amz-checksum-algorithm.'));
  }
  const algorithm = checksumAlgorithmFromName(name.trim());
  if (algorithm === undefined) {
    const names = CHECKSUM_ALGORITHMS.map((known) => known.toUpperCase()).join(', ');
    return err(s3Error('InvalidRequest', `The checksum algorithm ${name.trim()} is not one of ${names}.`));
  }
  const resolved = typeFor(algorithm, type.value);
  return resolved.kind === 'err' ? resolved : ok({ algorithm, type: resolved.value });
}

/** An object checksum a Complete request asserts: `x-amz-checksum-<alg>`, with its `-N` part count if sent. */
export interface AssertedChecksum {
  algorithm: ChecksumAlgorithm;
  digest: string;
  partCount?: number;
}

/** Reads CompleteMultipartUpload's object checksum header: at most one, well-formed, `…-N` allowed. */
export function readAssertedChecksum(header: Header): Result<AssertedChecksum | undefined, S3Failure> {
  let found: AssertedChecksum | undefined;
  for (const algorithm of CHECKSUM_ALGORITHMS) {
    const value = header(`x-amz-checksum-${algorithm}`)?.trim();
    if (value === undefined) continue;
    if (found !== undefined) return err(s3Error('InvalidRequest', 'Expecting a single x-amz-checksum- header.'));
    const match = /^([^-]*)(?:-(\d{1,5}))?$/.exec(value);
    if (match === null || !isWellFormedChecksum(algorithm, match[1]!)) {
      return err(s3Error('InvalidRequest', `Value for x-amz-checksum-${algorithm} header is invalid.`));
    }
    found = { algorithm, digest: match[1]!, ...(match[2] !== undefined ? { partCount: Number(match[2]) } : {}) };
  }
  return ok(found);
}

/** True when the asserted checksum is the stored object checksum `value` (a composite may omit its `-N`). */
export function assertedMatches(asserted: AssertedChecksum, value: string): boolean {
  const [digest, count] = value.split('-');
  if (asserted.digest !== digest) return false;
  return asserted.partCount === undefined || String(asserted.partCount) === count;
}

/** A failed comparison of a Complete request's object checksum. */
export function checksumMismatch(algorithm: ChecksumAlgorithm): S3Failure {
  return s3Error('BadDigest', `The ${algorithm.toUpperCase()} you specified did not match the calculated checksum.`);
}

/** Client-listed part checksums must be the stored ones (`InvalidPart` otherwise). */
function checkListedParts(parts: readonly CompletionPart[], stored: Map<number, PartInfo>): S3Failure | undefined {
  for (const part of parts) {
    for (const [algorithm, value] of Object.entries(part.checksums ?? {}) as Array<[ChecksumAlgorithm, string]>) {
      const kept = stored.get(part.partNumber)?.checksums?.[algorithm];
      if (kept !== undefined && kept !== value) {
        return s3Error('InvalidPart', `The ${algorithm.toUpperCase()} of part ${part.partNumber} does not match.`);
      }
    }
  }
  return undefined;
}

/** The algorithm and type of the object checksum: the upload's own, else the one asserted, else every part's. */
function objectChecksumKind(
  upload: ListPartsResult,
  asserted: AssertedChecksum | undefined,
  requestedType: BlobChecksumType | undefined,
  partChecksums: ReadonlyArray<BlobChecksums | undefined>,
): Result<UploadChecksum | undefined, S3Failure> {
  const own = upload.checksumAlgorithm;
  if (own !== undefined && asserted !== undefined && asserted.algorithm !== own) {
    const names = `x-amz-checksum-${asserted.algorithm} on an upload created with ${own.toUpperCase()}`;
    return err(s3Error('InvalidRequest', `The object checksum does not match the upload's algorithm: ${names}.`));
  }
  const algorithm =
    own ??
    asserted?.algorithm ??
    CHECKSUM_ALGORITHMS.find((name) => partChecksums.every((sums) => sums?.[name] !== undefined));
  if (algorithm === undefined) return ok(undefined);
  // An upload created before checksum types were kept has its algorithm's default.
  const kept = own === undefined ? undefined : (upload.checksumType ?? defaultChecksumType(own));
  if (kept !== undefined && requestedType !== undefined && requestedType !== kept) {
    return err(
      s3Error('InvalidRequest', `The upload was created with the ${kept} checksum type, not ${requestedType}.`),
    );
  }
  if (kept !== undefined) return ok({ algorithm, type: kept });
  const type = typeFor(algorithm, requestedType);
  return type.kind === 'err' ? type : ok({ algorithm, type: type.value });
}

/**
 * The object checksum a completing upload keeps, from its stored parts (never from the request body): the
 * composite `…-N` or, for FULL_OBJECT, the CRCs of the parts combined into the whole object's. The request's
 * `x-amz-checksum-<alg>` must match it (`BadDigest`); it cannot be checked when a part lacks its checksum
 * (`InvalidRequest`). `undefined` when the object gets no checksum.
 */
export async function completionChecksums(
  header: Header,
  upload: ListPartsResult,
  parts: readonly CompletionPart[],
): Promise<Result<BlobChecksums | undefined, S3Failure>> {
  const asserted = readAssertedChecksum(header);
  if (asserted.kind === 'err') return asserted;
  const requestedType = readType(header);
  if (requestedType.kind === 'err') return requestedType;
  const stored = new Map(upload.parts.map((part) => [part.partNumber, part]));
  const listedProblem = checkListedParts(parts, stored);
  if (listedProblem !== undefined) return err(listedProblem);
  const used = parts.map((part) => stored.get(part.partNumber));
  // A part that is not there fails the completion itself (InvalidPart), which storage answers.
  if (used.includes(undefined)) return ok(undefined);
  const kind = objectChecksumKind(
    upload,
    asserted.value,
    requestedType.value,
    used.map((part) => part?.checksums),
  );
  if (kind.kind === 'err') return kind;
  if (kind.value === undefined) return ok(undefined);
  const { algorithm, type } = kind.value;
  const value =
    type === 'FULL_OBJECT' && supportsFullObject(algorithm)
      ? fullObjectChecksum(
          algorithm,
          used.map((part) => ({ checksum: part?.checksums?.[algorithm], size: part?.size ?? 0 })),
        )
      : await compositeChecksum(
          algorithm,
          used.map((part) => part?.checksums?.[algorithm]),
        );
  if (value === undefined) {
    if (asserted.value === undefined) return ok(undefined);
    const missing = parts.find((part) => stored.get(part.partNumber)?.checksums?.[algorithm] === undefined);
    const which = missing === undefined ? 'a part' : `part ${missing.partNumber}`;
    return err(
      s3Error('InvalidRequest', `The object's ${algorithm.toUpperCase()} cannot be checked: ${which} carries none.`),
    );
  }
  if (asserted.value !== undefined && !assertedMatches(asserted.value, value)) return err(checksumMismatch(algorithm));
  return ok({ [algorithm]: value });
}
