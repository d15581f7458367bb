import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PACK_ERROR_CODES, PACK_PROTOCOL_VERSION, packError, toWireCause } from '../src/index.js';
import { readSpec, specsDir, specValidators } from './spec-schemas.js';

const validator = specValidators();

function defFor(file: string): ['pack-protocol' | 'pack-index', string | undefined] {
  if (file === 'index.json') return ['pack-index', undefined];
  if (file === 'info.json') return ['pack-protocol', 'info'];
  if (file.endsWith('-request.json')) return ['pack-protocol', 'request'];
  return ['pack-protocol', 'response'];
}

describe('specs/examples', () => {
  const files = readdirSync(`${specsDir}examples`).filter((f) => f.endsWith('.json'));

  it('has an example of each message kind and of the index', () => {
    expect(files).toEqual(expect.arrayContaining(['index.json', 'info.json', 'invoke-request.json']));
    expect(files.length).toBeGreaterThanOrEqual(8);
  });

  for (const file of files) {
    it(`${file} validates against its schema`, () => {
      const [schema, def] = defFor(file);
      const validate = validator(schema, def);
      const ok = validate(readSpec(`examples/${file}`));
      expect(validate.errors ?? []).toEqual([]);
      expect(ok).toBe(true);
    });
  }
});

describe('broken variants are refused', () => {
  const request = readSpec('examples/invoke-request.json') as Record<string, unknown>;
  const index = readSpec('examples/index.json') as Record<string, unknown>;
  const cases: [string, unknown, 'pack-protocol' | 'pack-index', string | undefined][] = [
    ['wrong v', { ...request, v: 1 }, 'pack-protocol', 'request'],
    ['empty tool id', { ...request, tool: { id: '' } }, 'pack-protocol', 'request'],
    ['ctx without runId', { ...request, ctx: { tenantId: 't' } }, 'pack-protocol', 'request'],
    ['unknown error code', { v: 2, kind: 'error', code: 'oops', message: 'x' }, 'pack-protocol', 'response'],
    ['check result without passed', { v: 2, kind: 'check-result', result: {} }, 'pack-protocol', 'response'],
    [
      'info with a string protocol',
      { protocol: '2', packId: 'a', packVersion: '1', artifactVersion: '1', tools: [], checks: [] },
      'pack-protocol',
      'info',
    ],
    ['index with an extra field', { ...index, extra: true }, 'pack-index', undefined],
    ['index with a KINDGI_ env name', { ...index, env: { required: ['KINDGI_X'] } }, 'pack-index', undefined],
    [
      'index with ./ module path',
      { ...index, tools: [{ id: 'a', input: {}, output: {}, modulePath: './a.js' }] },
      'pack-index',
      undefined,
    ],
    ['index without publishedAt millis', { ...index, publishedAt: '2026-09-20T14:32:07Z' }, 'pack-index', undefined],
  ];
  for (const [name, value, schema, def] of cases) {
    it(name, () => expect(validator(schema, def)(value)).toBe(false));
  }
});

describe('messages built by @kindgi/protocol validate', () => {
  const validate = validator('pack-protocol', 'response');
  for (const code of PACK_ERROR_CODES) {
    it(`packError(${code})`, () => {
      const message = packError(code, 'why', { toolId: 'a.b', cause: toWireCause(new TypeError('x')) });
      expect(message.v).toBe(PACK_PROTOCOL_VERSION);
      expect(validate(message)).toBe(true);
    });
  }

  it('every wire cause form validates', () => {
    for (const thrown of [undefined, null, 'text', 42, Number.NaN, true, { a: 1 }, Symbol('s'), new RangeError('r')]) {
      expect(validate(packError('handler-throw', 'm', { cause: toWireCause(thrown) }))).toBe(true);
    }
  });
});
