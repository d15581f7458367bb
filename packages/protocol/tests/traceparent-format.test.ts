import { describe, expect, it } from 'vitest';
import { formatTraceparent, parseTraceparent } from '../src/index.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';

describe('formatTraceparent', () => {
  it('writes version 00 with the sampled flag only', () => {
    expect(formatTraceparent({ traceId: TRACE, spanId: SPAN, traceFlags: 1 })).toBe(`00-${TRACE}-${SPAN}-01`);
    expect(formatTraceparent({ traceId: TRACE, spanId: SPAN, traceFlags: 0 })).toBe(`00-${TRACE}-${SPAN}-00`);
    expect(formatTraceparent({ traceId: TRACE, spanId: SPAN, traceFlags: 0xfe })).toBe(`00-${TRACE}-${SPAN}-00`);
  });

  it('writes nothing for ids that are not W3C ids', () => {
    expect(formatTraceparent(undefined)).toBeUndefined();
    expect(formatTraceparent({ traceId: '0'.repeat(32), spanId: SPAN, traceFlags: 1 })).toBeUndefined();
    expect(formatTraceparent({ traceId: TRACE, spanId: '0'.repeat(16), traceFlags: 1 })).toBeUndefined();
    expect(formatTraceparent({ traceId: TRACE.toUpperCase(), spanId: SPAN, traceFlags: 1 })).toBeUndefined();
    expect(formatTraceparent({ traceId: TRACE, spanId: `${SPAN}0`, traceFlags: 1 })).toBeUndefined();
  });

  it('round-trips with parseTraceparent, a future version coming back as 00', () => {
    const header = `00-${TRACE}-${SPAN}-01`;
    expect(formatTraceparent(parseTraceparent(header))).toBe(header);
    expect(formatTraceparent(parseTraceparent(`7f-${TRACE}-${SPAN}-01-more`))).toBe(header);
  });
});
