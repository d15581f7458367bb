import { describe, expect, it } from 'vitest';

// Each entry point's runtime exports, by name: adding, renaming or removing one must show up in review as a
// change to these lists (types are checked by the packages that import them).
describe('@kindgi/api public surface', () => {
  it('. exports exactly these names', async () => {
    const surface = await import('../src/index.js');
    expect(Object.keys(surface).sort()).toEqual([
      'ApiError',
      'AwsChunkedDecoder',
      'DEFAULT_ARTIFACT_MAX_BYTES',
      'DEFAULT_RUN_EXECUTION',
      'EMPTY_SHA256',
      'OPENAPI_PATH',
      'REST_ERROR_STATUS',
      'S3_ERRORS',
      'canonicalQuery',
      'canonicalRequest',
      'canonicalUri',
      'checkSigV4Claim',
      'chunkStringToSign',
      'constantTimeEqual',
      'createApp',
      'createCursorSealer',
      'createInMemoryIdempotencyStore',
      'createOpenApiDocument',
      'createS3App',
      'deriveSigningKey',
      'formatTraceparent',
      'idempotencyMiddleware',
      'parseSigV4',
      'parseTraceparent',
      'signHex',
      'statusFor',
      'stringToSign',
      'trailerStringToSign',
      'verifySigV4',
      'withS3Telemetry',
    ]);
  });

  it('re-exports the S3 surface of @kindgi/s3 itself, for code that imported it from here', async () => {
    const api = await import('../src/index.js');
    const s3 = await import('@kindgi/s3');
    for (const name of Object.keys(s3)) {
      expect(api[name as keyof typeof api], name).toBe(s3[name as keyof typeof s3]);
    }
  });
});
