import { describe, expect, it } from 'vitest';

// The package's runtime exports, by name: adding, renaming or removing one must show up in review as a
// change to this list (types are checked by the packages that import them).
// @kindgi/api re-exports every one of them (packages/api/tests/exports.test.ts).
describe('@kindgi/s3 public surface', () => {
  it('. exports exactly these names', async () => {
    const surface = await import('../src/index.js');
    expect(Object.keys(surface).sort()).toEqual([
      'AwsChunkedDecoder',
      'EMPTY_SHA256',
      'S3_ERRORS',
      'canonicalQuery',
      'canonicalRequest',
      'canonicalUri',
      'checkSigV4Claim',
      'chunkStringToSign',
      'constantTimeEqual',
      'createS3App',
      'deriveSigningKey',
      'parseSigV4',
      'signHex',
      'stringToSign',
      'trailerStringToSign',
      'verifySigV4',
    ]);
  });
});
