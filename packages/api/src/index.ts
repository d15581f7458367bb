export type { ApiLogger } from '@kindgi/bindings';
// The run worker lives in @kindgi/run-worker; its options stay here for code that imported them from @kindgi/api.
export { DEFAULT_RUN_EXECUTION, type RunExecutionOptions } from '@kindgi/run-worker';
// The S3 surface lives in @kindgi/s3; these names stay here for code that imported them from @kindgi/api.
export {
  AwsChunkedDecoder,
  type AwsChunkedOptions,
  type CanonicalRequestInput,
  type ChunkSigning,
  type CreateS3AppInput,
  canonicalQuery,
  canonicalRequest,
  canonicalUri,
  checkSigV4Claim,
  chunkStringToSign,
  constantTimeEqual,
  createS3App,
  deriveSigningKey,
  EMPTY_SHA256,
  parseSigV4,
  S3_ERRORS,
  type S3ErrorCode,
  type S3Failure,
  type SigV4Claim,
  type SigV4Request,
  signHex,
  stringToSign,
  trailerStringToSign,
  type VerifiedSigV4,
  verifySigV4,
} from '@kindgi/s3';
export { type CreateAppInput, createApp, DEFAULT_ARTIFACT_MAX_BYTES, type KindgiApp } from './app.js';
export type { AppEnv } from './env.js';
export { ApiError, type ErrorEnvelope } from './errors/api-error.js';
export { REST_ERROR_STATUS, type RestErrorCode, type RestErrorStatus, statusFor } from './errors/codes.js';
export { createInMemoryIdempotencyStore } from './idempotency/in-memory-store.js';
export { type IdempotencyOptions, idempotencyMiddleware } from './idempotency/middleware.js';
export type { McpOption } from './mcp.js';
export { createOpenApiDocument, OPENAPI_PATH, type OpenApiMeta } from './openapi/document.js';
export { type CursorSealer, createCursorSealer } from './pagination/cursor-seal.js';
export type { ReadinessCheckResult, ReadinessProbe } from './routes/health.js';
export type { SseOptions, StreamTiming } from './runs/stream.js';
export type { MetricsRouteOptions } from './telemetry/metrics-route.js';
export { withS3Telemetry } from './telemetry/standalone-s3.js';
export { formatTraceparent, parseTraceparent } from './telemetry/trace-context.js';
