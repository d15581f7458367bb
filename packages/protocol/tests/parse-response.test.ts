import { describe, expect, it } from 'vitest';
import { parsePackResponse } from '../src/index.js';

function refusal(value: unknown) {
  const parsed = parsePackResponse(value);
  if (parsed.kind === 'ok') throw new Error('expected a refusal');
  return { code: parsed.error.code, message: parsed.error.message };
}

describe('parsePackResponse', () => {
  it('accepts result, check-result and error messages, keeping unknown fields', () => {
    const check = { v: 2, kind: 'check-result', result: { passed: false, reason: 'short', score: 0.2 }, x: 1 };
    expect(parsePackResponse(check)).toEqual({ kind: 'ok', value: check });
    expect(parsePackResponse({ v: 2, kind: 'result', output: null }).kind).toBe('ok');
    expect(parsePackResponse({ v: 2, kind: 'error', code: 'handler-throw', message: 'x' }).kind).toBe('ok');
  });

  it('refuses a check-result without passed as malformed-message', () => {
    const expected = { code: 'malformed-message', message: 'A `check-result` message needs a boolean `result.passed`' };
    expect(refusal({ v: 2, kind: 'check-result', result: {} })).toEqual(expected);
    expect(refusal({ v: 2, kind: 'check-result', result: { passed: 'yes' } })).toEqual(expected);
    expect(refusal({ v: 2, kind: 'check-result', result: 'anything' })).toEqual(expected);
    expect(refusal({ v: 2, kind: 'check-result' })).toEqual(expected);
  });

  it('refuses a result without output', () => {
    expect(refusal({ v: 2, kind: 'result' })).toEqual({
      code: 'malformed-message',
      message: 'A `result` message needs an `output`',
    });
  });

  it('accepts an error only with a known code and a string message', () => {
    const needs = 'An `error` message needs string `code` and `message`';
    expect(refusal({ v: 2, kind: 'error', code: 1, message: 'x' })).toEqual({
      code: 'malformed-message',
      message: needs,
    });
    expect(refusal({ v: 2, kind: 'error', code: 'handler-throw' }).message).toBe(needs);
    expect(refusal({ v: 2, kind: 'error', code: 'oops', message: 'x' }).message).toBe('Unknown error code "oops"');
    expect(refusal({ v: 2, kind: 'error', code: 'cancelled', message: 'x', toolId: 3 }).message).toBe(
      '`toolId` must be string',
    );
    expect(refusal({ v: 2, kind: 'error', code: 'cancelled', message: 'x', issues: [{ message: 'm' }] }).message).toBe(
      '`issues[0].instancePath` is required',
    );
  });

  it('refuses non-objects, other versions and unknown kinds', () => {
    const codes = [null, [], { v: 1, kind: 'result' }, { v: 2, kind: 'invoke' }].map((value) => {
      const parsed = parsePackResponse(value);
      return parsed.kind === 'err' ? parsed.error.code : 'ok';
    });
    expect(codes).toEqual([
      'malformed-message',
      'malformed-message',
      'unknown-protocol-version',
      'unexpected-message-kind',
    ]);
  });

  it('names the unknown kind', () => {
    const parsed = parsePackResponse({ v: 2, kind: 'invoke' });
    expect(parsed.kind === 'err' && parsed.error.message).toBe('Unknown response kind "invoke"');
    expect(refusal({ v: 2, kind: 'toString' }).code).toBe('unexpected-message-kind');
  });
});
