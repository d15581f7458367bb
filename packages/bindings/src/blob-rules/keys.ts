import { createHash } from 'node:crypto';
import { err, ok, type Result } from '@kindgi/protocol';
import type { BlobError, CompletedPart } from '../blob-storage.js';
import { MAX_MULTIPART_PARTS, MIN_MULTIPART_PART_BYTES } from '../blob-storage.js';

/** The longest key S3 accepts, in UTF-8 bytes. */
export const MAX_KEY_BYTES = 1024;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Refuses only what S3 refuses: an empty key, one over 1024 UTF-8 bytes, or text that is not UTF-8. */
export function checkAddress(bucket: string, key: string): Result<true, BlobError> {
  if (typeof bucket !== 'string' || bucket.length === 0 || LONE_SURROGATE.test(bucket)) {
    return err({ code: 'invalid-key', message: 'the bucket name must be a non-empty UTF-8 string' });
  }
  if (typeof key !== 'string' || key.length === 0) {
    return err({ code: 'invalid-key', message: 'the key must be a non-empty string' });
  }
  if (LONE_SURROGATE.test(key)) {
    return err({ code: 'invalid-key', message: 'the key contains a lone surrogate, so it is not UTF-8' });
  }
  const bytes = Buffer.byteLength(key, 'utf8');
  if (bytes > MAX_KEY_BYTES) {
    return err({
      code: 'invalid-key',
      message: `the key is ${bytes} UTF-8 bytes; at most ${MAX_KEY_BYTES} are allowed`,
    });
  }
  return ok(true);
}

/** An ETag as clients send it (maybe quoted, maybe upper case) in the form we store: unquoted lower case. */
export function normalizeEtag(etag: string): string {
  const trimmed = etag.trim();
  const unquoted =
    trimmed.length >= 2 && trimmed.startsWith('"') && trimmed.endsWith('"') ? trimmed.slice(1, -1) : trimmed;
  return unquoted.toLowerCase();
}

/** The S3 multipart ETag: md5 of the concatenated binary part MD5s, then `-<part count>`. */
export function multipartEtag(partMd5Hexes: readonly string[]): string {
  const md5 = createHash('md5');
  for (const hex of partMd5Hexes) md5.update(Buffer.from(hex, 'hex'));
  return `${md5.digest('hex')}-${partMd5Hexes.length}`;
}

/** True when `partNumber` is a part number S3 accepts (1..10000). */
export function isPartNumber(partNumber: number): boolean {
  return Number.isInteger(partNumber) && partNumber >= 1 && partNumber <= MAX_MULTIPART_PARTS;
}

/** A stored part as completion checks need it. */
export interface StoredPartSummary {
  etag: string;
  size: number;
}

/**
 * Checks a CompleteMultipartUpload list against the stored parts: non-empty, strictly ascending, every part
 * stored with the given ETag, every part but the last at least 5 MiB.
 */
export function checkCompletion(
  parts: readonly CompletedPart[],
  stored: (partNumber: number) => StoredPartSummary | undefined,
): Result<StoredPartSummary[], BlobError> {
  if (!Array.isArray(parts) || parts.length === 0) {
    return err({ code: 'invalid-part', message: 'a multipart upload completes with at least one part', partNumber: 0 });
  }
  let previous = 0;
  for (const part of parts) {
    if (!isPartNumber(part.partNumber)) {
      return err({
        code: 'invalid-part',
        message: `part number ${part.partNumber} is out of range`,
        partNumber: part.partNumber,
      });
    }
    if (part.partNumber <= previous) {
      return err({ code: 'invalid-part-order', message: 'parts must be listed in strictly ascending order' });
    }
    previous = part.partNumber;
  }
  const found: StoredPartSummary[] = [];
  for (const part of parts) {
    const summary = stored(part.partNumber);
    if (summary === undefined || typeof part.etag !== 'string' || normalizeEtag(part.etag) !== summary.etag) {
      return err({
        code: 'invalid-part',
        message: `part ${part.partNumber} was not uploaded or its ETag does not match`,
        partNumber: part.partNumber,
      });
    }
    found.push(summary);
  }
  for (let i = 0; i < found.length - 1; i++) {
    if (found[i]!.size < MIN_MULTIPART_PART_BYTES) {
      return err({
        code: 'entity-too-small',
        message: `part ${parts[i]!.partNumber} is ${found[i]!.size} bytes; all but the last must be at least 5 MiB`,
        partNumber: parts[i]!.partNumber,
      });
    }
  }
  return ok(found);
}

/** The default object name for an address: the text after the key's last `/`, or the key itself. */
export function nameFromKey(key: string): string {
  const slash = key.lastIndexOf('/');
  const tail = slash >= 0 ? key.slice(slash + 1) : key;
  return tail.length > 0 ? tail : key;
}
