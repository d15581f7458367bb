import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, parsePackRequest, parsePackRequestText } from '../src/index.js';

const ctx = { tenantId: 't', runId: 'r' };
const invoke = { v: 2, kind: 'invoke', tool: { id: 'a.echo' }, input: {}, ctx };
const checkInvoke = { v: 2, kind: 'check-invoke', check: { id: 'a.checks.len' }, config: {}, trace: {} };

function refusal(value: unknown) {
  const parsed = parsePackRequest(value);
  if (parsed.kind === 'ok') throw new Error('expected a refusal');
  return { code: parsed.error.code, message: parsed.error.message };
}

describe('parsePackRequest', () => {
  it('accepts an invoke and a check-invoke, keeping unknown fields and ctx as sent', () => {
    const withExtras = { ...invoke, extra: 1, ctx: { ...ctx, custom: { deep: true } } };
    const parsed = parsePackRequest(withExtras);
    expect(parsed).toEqual({ kind: 'ok', value: withExtras });
    expect(parsePackRequest(checkInvoke).kind).toBe('ok');
  });

  it.each([
    ['null', null],
    ['an array', [invoke]],
    ['a string', 'invoke'],
    ['a number', 2],
    ['a class instance', new Date()],
  ])('refuses %s as malformed-message', (_name, value) => {
    expect(refusal(value)).toEqual({ code: 'malformed-message', message: 'Message must be a JSON object' });
  });

  it.each([
    [1, 'Expected protocol v2, got 1'],
    ['2', 'Expected protocol v2, got "2"'],
    [undefined, 'Expected protocol v2, got undefined'],
  ])('refuses v=%j', (v, message) => {
    expect(refusal({ ...invoke, v })).toEqual({ code: 'unknown-protocol-version', message });
  });

  it('checks v before kind', () => {
    expect(refusal({ v: 3, kind: 'nope' }).code).toBe('unknown-protocol-version');
  });

  it('refuses an unknown kind', () => {
    expect(refusal({ ...invoke, kind: 'result' })).toEqual({
      code: 'unexpected-message-kind',
      message: 'Unknown request kind "result"',
    });
    expect(refusal({ v: 2 }).message).toBe('Unknown request kind undefined');
  });

  it.each([
    ['no tool', { ...invoke, tool: undefined }, '`tool.id` is required'],
    ['empty tool id', { ...invoke, tool: { id: '' } }, '`tool.id` is required'],
    ['numeric tool id', { ...invoke, tool: { id: 7 } }, '`tool.id` is required'],
    ['numeric version', { ...invoke, tool: { id: 'a', version: 1 } }, '`tool.version` must be a string'],
    ['no ctx', { ...invoke, ctx: undefined }, '`ctx` needs string `tenantId` and `runId`'],
    ['ctx without runId', { ...invoke, ctx: { tenantId: 't' } }, '`ctx` needs string `tenantId` and `runId`'],
    [
      'ctx with numeric tenant',
      { ...invoke, ctx: { tenantId: 1, runId: 'r' } },
      '`ctx` needs string `tenantId` and `runId`',
    ],
    ['no check', { ...checkInvoke, check: undefined }, '`check.id` is required'],
    ['empty check id', { ...checkInvoke, check: { id: '' } }, '`check.id` is required'],
    ['array config', { ...checkInvoke, config: [] }, '`config` must be an object'],
    ['missing config', { ...checkInvoke, config: undefined }, '`config` must be an object'],
    ['no input', { ...invoke, input: undefined }, '`input` is required'],
    ['a numeric env value', { ...invoke, ctx: { ...ctx, env: { A: 1 } } }, '`ctx.env.A` must be string'],
    [
      'an idempotencyKey that is no UUID',
      { ...invoke, ctx: { ...ctx, idempotencyKey: 'k' } },
      '`ctx.idempotencyKey` must match format "uuid"',
    ],
    ['no trace', { ...checkInvoke, trace: undefined }, '`trace` is required'],
    [
      'an unknown trace mode',
      { ...checkInvoke, trace: { mode: 'later' } },
      '`trace.mode` must be equal to one of the allowed values',
    ],
  ])('refuses %s', (_name, value, message) => {
    expect(refusal(value)).toEqual({ code: 'malformed-message', message });
  });

  it('checks tool.id before tool.version, ctx and the rest, and check.id before config', () => {
    expect(refusal({ v: 2, kind: 'invoke' }).message).toBe('`tool.id` is required');
    const everythingWrong = { v: 2, kind: 'invoke', tool: { id: '', version: 1 }, ctx: { env: 1 } };
    expect(refusal(everythingWrong).message).toBe('`tool.id` is required');
    expect(refusal({ ...everythingWrong, tool: { id: 'a', version: 1 } }).message).toBe(
      '`tool.version` must be a string',
    );
    expect(refusal({ ...everythingWrong, tool: { id: 'a' } }).message).toBe(
      '`ctx` needs string `tenantId` and `runId`',
    );
    expect(refusal({ v: 2, kind: 'check-invoke', config: [] }).message).toBe('`check.id` is required');
  });

  it('answers unexpected-message-kind for a kind that is an Object.prototype name', () => {
    expect(refusal({ ...invoke, kind: 'constructor' }).code).toBe('unexpected-message-kind');
  });

  it('never throws on hostile values', () => {
    const proxy = new Proxy(
      {},
      {
        get() {
          throw new Error('trap');
        },
      },
    );
    const cyclic: Record<string, unknown> = { v: 9 };
    cyclic.self = cyclic;
    expect(parsePackRequest(cyclic).kind).toBe('err');
    expect(() => parsePackRequest(proxy)).not.toThrow();
  });
});

describe('parsePackRequestText', () => {
  it('refuses text that is not JSON', () => {
    const parsed = parsePackRequestText('{"v":2,');
    expect(parsed.kind === 'err' && parsed.error).toMatchObject({
      code: 'malformed-message',
      message: 'Request body is not valid JSON',
    });
  });

  it('parses a valid body', () => {
    expect(parsePackRequestText(JSON.stringify(invoke)).kind).toBe('ok');
  });

  it('handles huge and deeply nested bodies without throwing', () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const deepResult = parsePackRequestText(deep);
    expect(deepResult.kind).toBe('err');
    const big = JSON.stringify({ ...invoke, input: { blob: 'x'.repeat(5_000_000) } });
    expect(parsePackRequestText(big).kind).toBe('ok');
  });
});

describe('parsePackRequest: nesting depth', () => {
  const nested = (levels: number): unknown => {
    let value: unknown = 'leaf';
    for (let i = 0; i < levels; i += 1) value = [value];
    return value;
  };

  it('accepts a message nesting exactly MAX_JSON_DEPTH levels and refuses one level more', () => {
    // The message object is level 1 and `input` level 2, so the input may nest MAX_JSON_DEPTH - 1 levels.
    expect(parsePackRequest({ ...invoke, input: nested(MAX_JSON_DEPTH - 1) }).kind).toBe('ok');
    expect(refusal({ ...invoke, input: nested(MAX_JSON_DEPTH) })).toEqual({
      code: 'malformed-message',
      message: `Message nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`,
    });
  });

  it('refuses deep text far past the stack limit without throwing, and deep check config too', () => {
    const depth = 100_000;
    const text = JSON.stringify({ ...invoke, input: 0 }).replace(
      '"input":0',
      `"input":${'['.repeat(depth)}${']'.repeat(depth)}`,
    );
    const parsed = parsePackRequestText(text);
    expect(parsed.kind === 'err' && parsed.error.code).toBe('malformed-message');
    expect(refusal({ ...checkInvoke, config: { deep: nested(MAX_JSON_DEPTH) } }).code).toBe('malformed-message');
  });

  it('checks the depth of the shortest text that can nest too deep (short bodies skip the walk)', () => {
    // The tightest JSON past the limit: MAX_JSON_DEPTH + 1 brackets each way, nothing else.
    const tightest = `${'['.repeat(MAX_JSON_DEPTH + 1)}${']'.repeat(MAX_JSON_DEPTH + 1)}`;
    const message = `{"v":2,"kind":"invoke","tool":{"id":"t"},"ctx":{"tenantId":"t","runId":"r"},"input":`;
    // Message (1) + `input` nests the rest: MAX_JSON_DEPTH brackets in `input` is one level too many.
    const tooDeep = `${message}${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}}`;
    const deepest = `${message}${'['.repeat(MAX_JSON_DEPTH - 1)}${']'.repeat(MAX_JSON_DEPTH - 1)}}`;
    expect(tightest.length).toBe(2 * (MAX_JSON_DEPTH + 1));
    const refused = parsePackRequestText(tooDeep);
    expect(refused.kind === 'err' && refused.error.message).toBe(
      `Message nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`,
    );
    expect(parsePackRequestText(deepest).kind).toBe('ok');
  });
});
