import { describe, expect, it } from 'vitest';
import { parseBearer } from '../src/index.js';

describe('parseBearer', () => {
  it('reads the token, whatever the case of the scheme (RFC 7235)', () => {
    for (const scheme of ['Bearer', 'bearer', 'BEARER', 'bEaReR']) {
      expect(parseBearer(`${scheme} abc.def-123`)).toEqual({ kind: 'token', token: 'abc.def-123' });
    }
    expect(parseBearer('Bearer   spaced  ')).toEqual({ kind: 'token', token: 'spaced' });
  });

  it('takes the first of several header values', () => {
    expect(parseBearer(['Bearer one', 'Bearer two'])).toEqual({ kind: 'token', token: 'one' });
  });

  it('tells a missing header from a malformed one', () => {
    expect(parseBearer(undefined)).toEqual({ kind: 'missing' });
    expect(parseBearer('   ')).toEqual({ kind: 'missing' });
    expect(parseBearer([])).toEqual({ kind: 'missing' });
    for (const value of ['Basic dXNlcjpwYXNz', 'Bearer', 'Bearer ', 'Bearer two words', 'Bearertoken']) {
      expect(parseBearer(value)).toEqual({ kind: 'malformed' });
    }
  });
});
