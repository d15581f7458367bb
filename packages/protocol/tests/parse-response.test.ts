import { describe, expect, it } from 'vitest';
import { parsePackResponse } from '../src/index.js';

describe('parsePackResponse', () => {
  it('accepts result and check-result without looking at their bodies', () => {
    expect(parsePackResponse({ v: 2, kind: 'result' }).kind).toBe('ok');
    expect(parsePackResponse({ v: 2, kind: 'check-result', result: 'anything' }).kind).toBe('ok');
  });

  it('accepts an error only with string code and message', () => {
    expect(parsePackResponse({ v: 2, kind: 'error', code: 'handler-throw', message: 'x' }).kind).toBe('ok');
    const refused = parsePackResponse({ v: 2, kind: 'error', code: 1, message: 'x' });
    expect(refused.kind === 'err' && refused.error.code).toBe('malformed-message');
    expect(parsePackResponse({ v: 2, kind: 'error', code: 'x' }).kind).toBe('err');
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
  });
});
