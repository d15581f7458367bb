export { type CreateS3AppInput, createS3App } from './app.js';
export { S3_ERRORS, type S3ErrorCode, type S3Failure } from './errors.js';
export { AwsChunkedDecoder, type AwsChunkedOptions, type ChunkSigning } from './sigv4/aws-chunked.js';
export { canonicalQuery, canonicalUri } from './sigv4/encoding.js';
export { checkSigV4Claim, parseSigV4, type SigV4Claim } from './sigv4/parse.js';
export {
  type CanonicalRequestInput,
  canonicalRequest,
  chunkStringToSign,
  constantTimeEqual,
  deriveSigningKey,
  EMPTY_SHA256,
  signHex,
  stringToSign,
  trailerStringToSign,
} from './sigv4/signing.js';
export { type SigV4Request, type VerifiedSigV4, verifySigV4 } from './sigv4/verify.js';
