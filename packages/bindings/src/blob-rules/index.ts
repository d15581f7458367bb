// S3 storage rules every BlobStorageBinding implementation shares (in-memory, filesystem, …), so that
// they agree byte for byte on keys, ETags, listing order and multipart checks.
export { type BodyDigests, type BodyExpectations, checkDigests, consumeBody } from './body.js';
export { keyNotFound, preconditionFailed, writeConditionsHold } from './conditions.js';
export {
  checkAddress,
  checkCompletion,
  isPartNumber,
  MAX_KEY_BYTES,
  multipartEtag,
  nameFromKey,
  normalizeEtag,
  type StoredPartSummary,
} from './keys.js';
export {
  compareKeys,
  type FirstKeyAt,
  listByPrefixOver,
  type PrefixPage,
  prefixSuccessor,
  type ScanBound,
} from './list-by-prefix.js';
export {
  buildMeta,
  clampListLimit,
  decodeListCursor,
  encodeListCursor,
  type MetaInput,
  matchesFilter,
  metaInputFromInit,
} from './meta.js';
export {
  afterUploadMarkers,
  clampMaxUploads,
  compareUploads,
  pageUploads,
  sameCompletion,
  uploadChecksumAttributes,
} from './uploads.js';
