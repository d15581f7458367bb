export { type CreateS3AppInput, createS3App } from './app.js';
export { type ChecksumAlgorithm, createChecksummer } from './checksums.js';
export { evaluateConditions, evaluateRange, type RangeOutcome } from './conditions.js';
export { findBodyFailure, S3_ERRORS, S3BodyError, type S3ErrorCode, type S3Failure, s3Error } from './errors.js';
export { AwsChunkedDecoder, type AwsChunkedOptions, type ChunkSigning } from './sigv4/aws-chunked.js';
export { canonicalQuery, canonicalUri, parseRawQuery, uriEncode } from './sigv4/encoding.js';
export { checkSigV4Claim, parseAmzDate, parseSigV4, type SigV4Claim, type SigV4Source } from './sigv4/parse.js';
export {
  type CanonicalRequestInput,
  canonicalHeaders,
  canonicalRequest,
  chunkStringToSign,
  constantTimeEqual,
  deriveSigningKey,
  EMPTY_SHA256,
  type HeaderPairs,
  sha256Hex,
  signHex,
  stringToSign,
  trailerStringToSign,
} from './sigv4/signing.js';
export {
  checkSigV4Scope,
  expectedSignature,
  type SigV4Request,
  type SigV4Scope,
  sigV4Source,
  type VerifiedSigV4,
  verifySigV4,
} from './sigv4/verify.js';
