import { describe, expect, it } from 'vitest';
import { readRangeHeader } from '../src/range-header.js';

describe('readRangeHeader (the one Range parser of S3 and REST)', () => {
  it.each([
    ['bytes=0-0', { start: 0, end: 0 }],
    ['bytes=2-5', { start: 2, end: 5 }],
    ['bytes=2-', { start: 2, end: 9 }],
    ['bytes=4-99', { start: 4, end: 9 }],
    ['bytes=-3', { start: 7, end: 9 }],
    ['bytes=-20', { start: 0, end: 9 }],
    ['BYTES = 1 - 2 ', { start: 1, end: 2 }],
  ])('%s of 10 bytes is a partial range', (header, range) => {
    expect(readRangeHeader(header, 10)).toEqual({ kind: 'partial', range });
  });

  it('asks for the whole object without a header or with another unit', () => {
    expect(readRangeHeader(undefined, 10)).toEqual({ kind: 'whole' });
    expect(readRangeHeader('items=0-1', 10)).toEqual({ kind: 'whole' });
  });

  it('tells an end before its start apart, whatever the size', () => {
    expect(readRangeHeader('bytes=5-2', 10)).toEqual({ kind: 'reversed' });
    expect(readRangeHeader('bytes=5-2', 0)).toEqual({ kind: 'reversed' });
  });

  it.each([
    ['bytes=0-1,3-4', 10],
    ['bytes=x-1', 10],
    ['bytes=1 0-20', 10],
    ['bytes=-', 10],
    ['bytes=', 10],
    ['bytes=-0', 10],
    ['bytes=10-', 10],
    ['bytes=20-30', 10],
    ['bytes=0-', 0],
    ['bytes=-5', 0],
  ])('%s of %i bytes is unsatisfiable', (header, size) => {
    expect(readRangeHeader(header, size)).toEqual({ kind: 'unsatisfiable' });
  });
});
