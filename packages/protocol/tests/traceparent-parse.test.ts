import { describe, expect, it } from 'vitest';
import { parseTraceparent } from '../src/index.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';

describe('parseTraceparent (W3C Trace Context)', () => {
  it('reads a version 00 header as a remote span context, keeping only the sampled flag', () => {
    expect(parseTraceparent(`00-${TRACE}-${PARENT}-01`)).toEqual({
      traceId: TRACE,
      spanId: PARENT,
      traceFlags: 1,
      isRemote: true,
    });
    expect(parseTraceparent(`00-${TRACE}-${PARENT}-00`)?.traceFlags).toBe(0);
    expect(parseTraceparent(`00-${TRACE}-${PARENT}-03`)?.traceFlags).toBe(1);
  });

  it('takes the first of several header values', () => {
    expect(parseTraceparent([`00-${TRACE}-${PARENT}-01`, 'junk'])?.traceId).toBe(TRACE);
  });

  it.each([
    ['uppercase hex', `00-${TRACE.toUpperCase()}-${PARENT}-01`],
    ['an all-zero trace id', `00-${'0'.repeat(32)}-${PARENT}-01`],
    ['an all-zero parent id', `00-${TRACE}-${'0'.repeat(16)}-01`],
    ['version ff', `ff-${TRACE}-${PARENT}-01`],
    ['version 00 with a fifth field', `00-${TRACE}-${PARENT}-01-extra`],
    ['a short trace id', `00-${TRACE.slice(1)}-${PARENT}-01`],
    ['a non-hex flag', `00-${TRACE}-${PARENT}-0g`],
    ['an empty value', ''],
    ['an over-long value', `01-${TRACE}-${PARENT}-01-${'a'.repeat(600)}`],
  ])('refuses %s', (_, value) => {
    expect(parseTraceparent(value)).toBeUndefined();
  });

  it('refuses no header', () => {
    expect(parseTraceparent(undefined)).toBeUndefined();
    expect(parseTraceparent([])).toBeUndefined();
  });

  it('reads a future version by its first four fields', () => {
    expect(parseTraceparent(`01-${TRACE}-${PARENT}-01`)?.spanId).toBe(PARENT);
    expect(parseTraceparent(`cc-${TRACE}-${PARENT}-01-what-the-future-holds`)).toMatchObject({
      traceId: TRACE,
      spanId: PARENT,
      traceFlags: 1,
    });
    // A later field must be set off by a dash.
    expect(parseTraceparent(`cc-${TRACE}-${PARENT}-01.future`)).toBeUndefined();
  });
});
