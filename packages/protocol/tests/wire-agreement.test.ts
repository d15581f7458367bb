import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parsePackRequest, parsePackResponse, validateInfo, validatePackIndex } from '../src/index.js';
import { readSpec, specsDir, specValidators } from './spec-schemas.js';

// The schema in specs/ is the only definition of the wire: each parser must refuse exactly what it refuses.
// The reference verdict comes from the spec files compiled at test time, not from the generated code.
const schema = specValidators();

type Side = 'request' | 'response' | 'info' | 'index';

const parsers: Record<Side, (value: unknown) => boolean> = {
  request: (value) => parsePackRequest(value).kind === 'ok',
  response: (value) => parsePackResponse(value).kind === 'ok',
  info: (value) => validateInfo(value),
  index: (value) => validatePackIndex(value),
};

const schemaFor: Record<Side, (value: unknown) => boolean> = {
  request: (value) => schema('pack-protocol', 'request')(value) as boolean,
  response: (value) => schema('pack-protocol', 'response')(value) as boolean,
  info: (value) => schema('pack-protocol', 'info')(value) as boolean,
  index: (value) => schema('pack-index')(value) as boolean,
};

function sideOf(file: string): Side {
  if (file === 'index.json') return 'index';
  if (file === 'info.json') return 'info';
  return file.endsWith('-request.json') ? 'request' : 'response';
}

const example = (file: string) => readSpec(`examples/${file}`) as Record<string, unknown>;
const invoke = example('invoke-request.json');
const checkInvoke = example('check-invoke-request.json');
const ctx = invoke.ctx as Record<string, unknown>;
const trace = checkInvoke.trace as Record<string, unknown>;
const info = example('info.json');
const index = example('index.json');
const error = { v: 2, kind: 'error', code: 'handler-throw', message: 'boom' };

// [name, side, message, what the schema says]
const cases: [string, Side, unknown, boolean][] = [
  ['invoke with unknown fields at every level', 'request', { ...invoke, x: 1, tool: { id: 'a', x: 1 } }, true],
  ['check-invoke with unknown fields', 'request', { ...checkInvoke, x: 1, check: { id: 'c', x: 1 } }, true],
  ['invoke without input', 'request', { ...invoke, input: undefined }, false],
  ['invoke with null input', 'request', { ...invoke, input: null }, true],
  ['invoke with an empty tool id', 'request', { ...invoke, tool: { id: '' } }, false],
  ['invoke with a numeric tool version', 'request', { ...invoke, tool: { id: 'a', version: 1 } }, false],
  ['invoke without ctx.runId', 'request', { ...invoke, ctx: { tenantId: 't' } }, false],
  ['ctx with a numeric env value', 'request', { ...invoke, ctx: { ...ctx, env: { A: 1 } } }, false],
  ['ctx with an idempotencyKey that is no UUID', 'request', { ...invoke, ctx: { ...ctx, idempotencyKey: 'k' } }, false],
  [
    'ctx with a UUID idempotencyKey',
    'request',
    { ...invoke, ctx: { ...ctx, idempotencyKey: '0f8fad5b-d9cb-569f-a165-70867728950e' } },
    true,
  ],
  ['ctx with a numeric projectId', 'request', { ...invoke, ctx: { ...ctx, projectId: 7 } }, false],
  ['check-invoke without trace', 'request', { ...checkInvoke, trace: undefined }, false],
  ['check-invoke with an unknown trace mode', 'request', { ...checkInvoke, trace: { ...trace, mode: 'x' } }, false],
  ['check-invoke with an array config', 'request', { ...checkInvoke, config: [] }, false],
  ['a request of kind result', 'request', { v: 2, kind: 'result', output: 1 }, false],
  ['a request with v 1', 'request', { ...invoke, v: 1 }, false],
  ['result without output', 'response', { v: 2, kind: 'result' }, false],
  ['result with unknown fields', 'response', { v: 2, kind: 'result', output: null, x: 1 }, true],
  ['check-result without passed', 'response', { v: 2, kind: 'check-result', result: {} }, false],
  ['check-result with a string passed', 'response', { v: 2, kind: 'check-result', result: { passed: 'yes' } }, false],
  ['check-result that is not an object', 'response', { v: 2, kind: 'check-result', result: 'anything' }, false],
  [
    'check-result with extra result fields',
    'response',
    { v: 2, kind: 'check-result', result: { passed: true, score: 1 } },
    true,
  ],
  ['error with an unknown code', 'response', { ...error, code: 'oops' }, false],
  ['error without message', 'response', { ...error, message: undefined }, false],
  ['error with a numeric toolId', 'response', { ...error, toolId: 1 }, false],
  ['error with an issue lacking its message', 'response', { ...error, issues: [{ instancePath: '' }] }, false],
  ['error with unknown fields', 'response', { ...error, x: 1 }, true],
  ['a response of kind invoke', 'response', { ...invoke }, false],
  ['info with unknown fields', 'info', { ...info, x: 1, tools: [{ id: 'a', x: 1 }] }, true],
  ['info with a string protocol', 'info', { ...info, protocol: '2' }, false],
  ['index with an unknown envelope field', 'index', { ...index, x: 1 }, false],
  [
    'index with a ./ module path',
    'index',
    { ...index, tools: [{ id: 'a', input: {}, output: {}, modulePath: './a' }] },
    false,
  ],
  [
    'index tool with fields of its own',
    'index',
    { ...index, tools: [{ id: 'a', input: {}, output: {}, modulePath: 'a', x: 1 }] },
    true,
  ],
];

describe('parsers and specs/ agree', () => {
  const files = readdirSync(`${specsDir}examples`).filter((file) => file.endsWith('.json'));
  it.each(files)('examples/%s is accepted by both', (file) => {
    const side = sideOf(file);
    expect(schemaFor[side](example(file))).toBe(true);
    expect(parsers[side](example(file))).toBe(true);
  });

  it.each(cases)('%s', (_name, side, message, valid) => {
    // JSON carries no undefined: the messages are what a decoder would hand the parser.
    const decoded = JSON.parse(JSON.stringify(message));
    expect(schemaFor[side](decoded)).toBe(valid);
    expect(parsers[side](decoded)).toBe(valid);
  });
});
