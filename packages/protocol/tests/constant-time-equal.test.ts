import { describe, expect, it } from 'vitest';
import { constantTimeEqual, secretDigest, secretMatcher } from '../src/index.js';

describe('constantTimeEqual', () => {
  it('is true only for equal secrets, strings or bytes, whatever their lengths', () => {
    expect(constantTimeEqual('s3cret-token', 's3cret-token')).toBe(true);
    expect(constantTimeEqual('s3cret-token', 's3cret-tokeN')).toBe(false);
    expect(constantTimeEqual('short', 'a much longer presented value')).toBe(false);
    expect(constantTimeEqual('', '')).toBe(true);
    expect(constantTimeEqual('', 'x')).toBe(false);
    expect(constantTimeEqual(Buffer.from([1, 2, 3]), new Uint8Array([1, 2, 3]))).toBe(true);
    expect(constantTimeEqual(Buffer.from([1, 2, 3]), Buffer.from([1, 2]))).toBe(false);
  });

  it('tells apart strings that UTF-8 would encode alike (lone surrogates)', () => {
    expect(constantTimeEqual('\ud800', '\udc00')).toBe(false);
    expect(secretDigest('\ud800').equals(secretDigest('\udc00'))).toBe(false);
  });

  it('hashes to a fixed-size digest', () => {
    expect(secretDigest('x')).toHaveLength(32);
    expect(secretDigest('x'.repeat(100_000))).toHaveLength(32);
  });
});

describe('secretMatcher', () => {
  it('matches only the expected string', () => {
    const matches = secretMatcher('pack-token-0123456789');
    expect(matches('pack-token-0123456789')).toBe(true);
    expect(matches('pack-token-012345678')).toBe(false);
    expect(matches('')).toBe(false);
    expect(matches(undefined)).toBe(false);
    expect(matches(['pack-token-0123456789'])).toBe(false);
  });
});
