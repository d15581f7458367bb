import { describe, expect, it } from 'vitest';
import { createSecretRedactor, REDACTED } from '../src/secrets/redactor.js';

const secret = (n: number) => `sk-live-${String(n).padStart(6, '0')}-value`;

function redactorWith(count: number) {
  const redactor = createSecretRedactor();
  redactor.remember(Array.from({ length: count }, (_, n) => secret(n)));
  return redactor;
}

// Both ways of searching (each value in turn for a few; by position past 16) must redact alike.
describe.each([
  ['a few values', 3],
  ['many values', 500],
])('a redactor remembering %s', (_label, count) => {
  const redactor = redactorWith(count);
  const one = secret(1);

  it('replaces every occurrence, at the start, the end and side by side', () => {
    expect(redactor.redact(`${one} then ${one}${one}.`)).toBe(`${REDACTED} then ${REDACTED}${REDACTED}.`);
    expect(redactor.redact(`key=${secret(2)}`)).toBe(`key=${REDACTED}`);
  });

  it('leaves text without a value unchanged, and short text alone', () => {
    expect(redactor.redact('sk-live-99999 not a value')).toBe('sk-live-99999 not a value');
    expect(redactor.redact('short')).toBe('short');
  });

  it('takes out a value JSON-escaped inside a record, and every string of a nested value', () => {
    const quoted = createSecretRedactor();
    const withQuote = 'pa"ss\\word-0123';
    quoted.remember([withQuote, ...(count > 16 ? Array.from({ length: count }, (_, n) => secret(n)) : [])]);
    expect(quoted.redact(JSON.stringify({ v: withQuote }))).toBe(`{"v":"${REDACTED}"}`);
    expect(redactor.redactDeep({ a: [one, { b: `x${one}` }], n: 3 })).toEqual({
      a: [REDACTED, { b: `x${REDACTED}` }],
      n: 3,
    });
  });
});

describe('a redactor past its capacity', () => {
  it('forgets the least recently sent value first, and keeps one sent again', () => {
    const redactor = redactorWith(10_000);
    redactor.remember([secret(0)]);
    redactor.remember(['sk-live-fresh-value-1']);
    expect(redactor.size).toBe(10_000);
    expect(redactor.redact(secret(0))).toBe(REDACTED);
    expect(redactor.redact(secret(1))).toBe(secret(1));
    expect(redactor.redact('sk-live-fresh-value-1')).toBe(REDACTED);
  });

  it('redacts the longer of two values sharing a start whole', () => {
    const redactor = redactorWith(100);
    redactor.remember(['sk-live-000001-value-and-more']);
    expect(redactor.redact('[sk-live-000001-value-and-more]')).toBe(`[${REDACTED}]`);
  });
});
