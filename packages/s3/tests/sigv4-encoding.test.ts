import { describe, expect, it } from 'vitest';
import { evaluateRange } from '../src/conditions.js';
import { canonicalQuery, canonicalUri } from '../src/index.js';
import { parseAmzDate } from '../src/sigv4/parse.js';

describe("S3's canonical URI", () => {
  it('re-encodes each segment once, per RFC 3986', () => {
    expect(canonicalUri('/s3/b/a%20b')).toBe('/s3/b/a%20b');
    expect(canonicalUri('/s3/b/a+b')).toBe('/s3/b/a%2Bb');
    expect(canonicalUri('/s3/b/a%2Bb')).toBe('/s3/b/a%2Bb');
    expect(canonicalUri('/s3/b/100%25')).toBe('/s3/b/100%25');
    expect(canonicalUri('/s3/b/%7e(x)')).toBe('/s3/b/~%28x%29');
    expect(canonicalUri('/s3/b/%C3%BC%E6%97%A5')).toBe('/s3/b/%C3%BC%E6%97%A5');
    expect(canonicalUri('/s3/b/ü')).toBe('/s3/b/%C3%BC');
    expect(canonicalUri('')).toBe('/');
  });

  it('keeps dot segments and double slashes (S3 keys may hold them)', () => {
    expect(canonicalUri('/s3/b/./x//y/../z')).toBe('/s3/b/./x//y/../z');
  });

  it('keeps a stray percent that starts no escape as a literal percent', () => {
    expect(canonicalUri('/s3/b/50%off')).toBe('/s3/b/50%25off');
  });
});

describe('the canonical query', () => {
  it('gives valueless parameters an empty value and sorts by name then value', () => {
    expect(canonicalQuery('uploads', false)).toBe('uploads=');
    expect(canonicalQuery('x-id=PutObject&partNumber=1&uploadId=a', false)).toBe(
      'partNumber=1&uploadId=a&x-id=PutObject',
    );
    expect(canonicalQuery('b=2&a=2&a=1', false)).toBe('a=1&a=2&b=2');
  });

  it('encodes spaces as %20 whether sent as + or %20, and a literal plus as %2B', () => {
    expect(canonicalQuery('prefix=a+b', false)).toBe('prefix=a%20b');
    expect(canonicalQuery('prefix=a%20b', false)).toBe('prefix=a%20b');
    expect(canonicalQuery('prefix=a%2Bb', false)).toBe('prefix=a%2Bb');
  });

  it('leaves out X-Amz-Signature only for presigned requests, keeping hoisted checksum parameters', () => {
    const query = 'X-Amz-Signature=abc&x-amz-checksum-crc32=AAAAAA%3D%3D&X-Amz-Date=1';
    expect(canonicalQuery(query, true)).toBe('X-Amz-Date=1&x-amz-checksum-crc32=AAAAAA%3D%3D');
    expect(canonicalQuery(query, false)).toContain('X-Amz-Signature=abc');
  });
});

describe('dates and ranges', () => {
  it('parses only real YYYYMMDDTHHMMSSZ dates', () => {
    expect(parseAmzDate('20130524T000000Z')).toBe(Date.UTC(2013, 4, 24));
    for (const bad of ['20131324T000000Z', '20130532T000000Z', '20130524T250000Z', '2013-05-24T00:00:00Z']) {
      expect(parseAmzDate(bad)).toBeNaN();
    }
  });

  it('applies the S3 range rules', () => {
    expect(evaluateRange(undefined, 10)).toEqual({ kind: 'full' });
    expect(evaluateRange('bytes=0-0', 10)).toEqual({ kind: 'partial', range: { start: 0, end: 0 } });
    expect(evaluateRange('bytes=-20', 10)).toEqual({ kind: 'partial', range: { start: 0, end: 9 } });
    expect(evaluateRange('bytes=0-', 0)).toEqual({ kind: 'unsatisfiable' });
    expect(evaluateRange('bytes=-5', 0)).toEqual({ kind: 'unsatisfiable' });
    // A unit other than bytes is ignored, as AWS S3 and RFC 9110 do.
    expect(evaluateRange('items=0-1', 10)).toEqual({ kind: 'full' });
  });

  it('serves the whole object for an end before its start, as AWS S3 does', () => {
    expect(evaluateRange('bytes=5-2', 10)).toEqual({ kind: 'full' });
    expect(evaluateRange('bytes=5-', 10)).toEqual({ kind: 'partial', range: { start: 5, end: 9 } });
    expect(evaluateRange('bytes=20-', 10)).toEqual({ kind: 'unsatisfiable' });
  });
});
