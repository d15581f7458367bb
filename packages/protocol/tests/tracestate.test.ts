import { describe, expect, it } from 'vitest';
import { formatTracestate, MAX_TRACESTATE_CHARS, parseTracestate } from '../src/index.js';

describe('parseTracestate / formatTracestate (W3C Trace Context)', () => {
  it('reads list members in order and writes them back', () => {
    const state = parseTracestate('rojo=00f067aa0ba902b7, congo=t61rcWkgMzE');
    expect(state?.get('rojo')).toBe('00f067aa0ba902b7');
    expect(state?.get('congo')).toBe('t61rcWkgMzE');
    expect(formatTracestate(state)).toBe('rojo=00f067aa0ba902b7,congo=t61rcWkgMzE');
  });

  it('joins several headers into one list', () => {
    expect(formatTracestate(parseTracestate(['a=1', 'tenant@vendor=2']))).toBe('a=1,tenant@vendor=2');
  });

  it('drops members with an invalid key or value, and those past the 32nd', () => {
    expect(formatTracestate(parseTracestate('Upper=1,ok=2,bad=a=b,=3,novalue'))).toBe('ok=2');
    const many = Array.from({ length: 40 }, (_, i) => `k${i}=v`).join(',');
    expect(formatTracestate(parseTracestate(many))?.split(',')).toHaveLength(32);
  });

  it('reads nothing from an empty, all-invalid or over-long header', () => {
    expect(parseTracestate(undefined)).toBeUndefined();
    expect(parseTracestate('')).toBeUndefined();
    expect(parseTracestate('BAD=1')).toBeUndefined();
    expect(parseTracestate(`a=${'x'.repeat(MAX_TRACESTATE_CHARS)}`)).toBeUndefined();
    expect(formatTracestate(undefined)).toBeUndefined();
  });
});
