import { describe, expect, it } from 'vitest';
import { type BlobMeta, keyNotFound, preconditionFailed, writeConditionsHold } from '../src/index.js';

const current = { etag: 'abc123' } as BlobMeta;

describe('writeConditionsHold', () => {
  it.each([
    ['no conditions, nothing there', undefined, {}, true],
    ['no conditions, an object there', current, {}, true],
    ['If-None-Match: *, nothing there', undefined, { ifNoneMatch: '*' }, true],
    ['If-None-Match: *, an object there', current, { ifNoneMatch: '*' }, false],
    ['If-Match, quoted ETag that matches', current, { ifMatch: '"abc123"' }, true],
    ['If-Match, bare ETag that matches', current, { ifMatch: 'abc123' }, true],
    ['If-Match, another ETag', current, { ifMatch: '"other"' }, false],
    ['If-Match, nothing there', undefined, { ifMatch: '"abc123"' }, false],
  ] as const)('%s → %s', (_, meta, input, expected) => {
    expect(writeConditionsHold(meta, input)).toBe(expected);
  });
});

describe('blob errors', () => {
  it('name the code each S3 error maps from, and the key (JSON-quoted) and bucket', () => {
    expect(preconditionFailed()).toEqual({
      code: 'precondition-failed',
      message: 'the precondition on the current object failed',
    });
    expect(keyNotFound('b1', 'a "b"')).toEqual({
      code: 'blob-not-found',
      message: 'key "a \\"b\\"" does not exist in bucket b1',
      bucket: 'b1',
      key: 'a "b"',
    });
  });
});
