export type { Principal, TokenResolver } from './auth.js';
export {
  ARTIFACTS_BUCKET,
  type BlobBody,
  type BlobChecksums,
  type BlobContentHeaders,
  type BlobError,
  type BlobErrorCode,
  type BlobFilter,
  type BlobGetOptions,
  type BlobListPage,
  type BlobMeta,
  type BlobPutInput,
  type BlobReadResult,
  type BlobStorageBinding,
  type ByteRange,
  type CompletedPart,
  type ListByPrefixInput,
  type ListByPrefixResult,
  MAX_MULTIPART_PARTS,
  MIN_MULTIPART_PART_BYTES,
  type MultipartInitInput,
  type PartInfo,
  type UploadPartInput,
} from './blob-storage.js';
export type { IdempotencyEntry, IdempotencyHoldOutcome, IdempotencyStore } from './idempotency.js';
export type { CallOptions, RunCheckBinding, RunHandlerBinding } from './pack-calls.js';
export type {
  RunEvent,
  RunFilter,
  RunPatch,
  RunRecord,
  RunStatus,
  RunStore,
  RunStoreError,
  RunViolation,
} from './runs.js';
export type { S3Credential, S3CredentialBinding } from './s3-credentials.js';
export type { GuardrailDescriptor, ToolDescriptor, ToolRegistry } from './tool-registry.js';
