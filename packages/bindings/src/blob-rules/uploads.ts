import type {
  CompletedPart,
  ListMultipartUploadsInput,
  ListMultipartUploadsResult,
  MultipartInitInput,
  MultipartUploadSummary,
} from '../blob-storage.js';
import { normalizeEtag } from './keys.js';
import { compareKeys } from './list-by-prefix.js';

/** `maxUploads` as every implementation applies it: default 1000, clamped to 0..1000. */
export function clampMaxUploads(maxUploads: number | undefined): number {
  if (maxUploads === undefined || !Number.isFinite(maxUploads)) return 1000;
  return Math.max(0, Math.min(1000, Math.floor(maxUploads)));
}

/** The checksum algorithm and type an upload was created with, as `listParts` and listings answer them. */
export function uploadChecksumAttributes(
  init: MultipartInitInput,
): Pick<MultipartInitInput, 'checksumAlgorithm' | 'checksumType'> {
  const attributes: Pick<MultipartInitInput, 'checksumAlgorithm' | 'checksumType'> = {};
  if (init.checksumAlgorithm !== undefined) attributes.checksumAlgorithm = init.checksumAlgorithm;
  if (init.checksumType !== undefined) attributes.checksumType = init.checksumType;
  return attributes;
}

/** The order `listMultipartUploads` answers in: key (code units), then uploadId. */
export function compareUploads(a: MultipartUploadSummary, b: MultipartUploadSummary): number {
  return compareKeys(a.key, b.key) || compareKeys(a.uploadId, b.uploadId);
}

/** True when an upload comes after the markers of a `listMultipartUploads` page. */
export function afterUploadMarkers(
  upload: { key: string; uploadId: string },
  input: ListMultipartUploadsInput,
): boolean {
  if (input.keyMarker === undefined || input.keyMarker === '') return true;
  const byKey = compareKeys(upload.key, input.keyMarker);
  if (byKey !== 0) return byKey > 0;
  return input.uploadIdMarker !== undefined && input.uploadIdMarker !== '' && upload.uploadId > input.uploadIdMarker;
}

/** One page of `listMultipartUploads` over every upload of a bucket (for implementations that hold them all). */
export function pageUploads(
  uploads: Iterable<MultipartUploadSummary>,
  input: ListMultipartUploadsInput,
): ListMultipartUploadsResult {
  const prefix = input.prefix ?? '';
  const matching = [...uploads]
    .filter((upload) => upload.key.startsWith(prefix) && afterUploadMarkers(upload, input))
    .sort(compareUploads);
  const max = clampMaxUploads(input.maxUploads);
  return { uploads: matching.slice(0, max), isTruncated: matching.length > max };
}

/** True when a repeated CompleteMultipartUpload names exactly the parts the upload completed with. */
export function sameCompletion(completed: readonly CompletedPart[], retry: readonly CompletedPart[]): boolean {
  if (!Array.isArray(retry) || completed.length !== retry.length) return false;
  return completed.every(
    (part, i) =>
      part.partNumber === retry[i]!.partNumber &&
      typeof retry[i]!.etag === 'string' &&
      normalizeEtag(part.etag) === normalizeEtag(retry[i]!.etag),
  );
}
