import type { BlobError, BlobMeta, BlobPutInput } from '../blob-storage.js';
import { normalizeEtag } from './keys.js';

/**
 * Whether a conditional write may replace `current` (undefined: no object at the key): `If-None-Match: *`
 * needs no object, `If-Match` needs one whose ETag matches (quoted or not). A write without conditions
 * always may.
 *
 * @example
 * writeConditionsHold(undefined, { ifNoneMatch: '*' }); // true: nothing there yet
 * writeConditionsHold(meta, { ifMatch: `"${meta.etag}"` }); // true
 */
export function writeConditionsHold(
  current: BlobMeta | undefined,
  input: Pick<BlobPutInput, 'ifMatch' | 'ifNoneMatch'>,
): boolean {
  if (input.ifNoneMatch === '*' && current !== undefined) return false;
  if (input.ifMatch !== undefined && (current === undefined || normalizeEtag(input.ifMatch) !== current.etag)) {
    return false;
  }
  return true;
}

/** The error of a write whose conditions do not hold (S3 `PreconditionFailed`). */
export function preconditionFailed(): BlobError {
  return { code: 'precondition-failed', message: 'the precondition on the current object failed' };
}

/** The error of a read or delete by a key that holds no object (S3 `NoSuchKey`). */
export function keyNotFound(bucket: string, key: string): BlobError {
  return {
    code: 'blob-not-found',
    message: `key ${JSON.stringify(key)} does not exist in bucket ${bucket}`,
    bucket,
    key,
  };
}
