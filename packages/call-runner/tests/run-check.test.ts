import { describe, expect, it } from 'vitest';
import { type RunnableCheck, runCheck } from '../src/index.js';
import { fixture } from './helpers.js';

const minLengthSchema = {
  type: 'object',
  properties: { minLength: { type: 'integer', minimum: 0, default: 1 } },
  additionalProperties: false,
};

const check = (file: string, configSchema?: unknown): RunnableCheck => ({
  id: 'conformance.checks.min-length',
  modulePath: fixture(file),
  ...(configSchema === undefined ? {} : { configSchema }),
});

describe('runCheck', () => {
  it('calls evaluate(config, trace, {abortSignal}) and returns its result unvalidated', async () => {
    const outcome = await runCheck({
      check: check('check-evaluate.mjs', minLengthSchema),
      config: { minLength: 5 },
      trace: { output: 'hi', mode: 'runtime' },
    });
    expect(outcome).toEqual({
      kind: 'ok',
      value: { passed: false, reason: 'too short', sawSignal: true, config: { minLength: 5 } },
    });
  });

  it('validates the config as sent, without filling defaults', async () => {
    const config = {};
    const outcome = await runCheck({ check: check('check-evaluate.mjs', minLengthSchema), config, trace: {} });
    expect(outcome.kind === 'ok' && (outcome.value as { config: unknown }).config).toEqual({});
    expect(config).toEqual({});
  });

  it('input-validation-failed names the first issue, before importing', async () => {
    let imported = false;
    const outcome = await runCheck({
      check: check('check-evaluate.mjs', minLengthSchema),
      config: { minLength: -1 },
      trace: {},
      importCheck: () => {
        imported = true;
        return {};
      },
    });
    expect(imported).toBe(false);
    expect(outcome).toEqual({
      kind: 'err',
      error: {
        code: 'input-validation-failed',
        message: 'Check "conformance.checks.min-length" config failed validation at /minLength: must be >= 0',
        checkId: 'conformance.checks.min-length',
        issues: [
          {
            instancePath: '/minLength',
            schemaPath: '#/properties/minLength/minimum',
            keyword: 'minimum',
            params: { comparison: '>=', limit: 0 },
            message: 'must be >= 0',
          },
        ],
      },
    });
  });

  it('input-validation-failed for a config schema that will not compile', async () => {
    const outcome = await runCheck({ check: check('check-evaluate.mjs', { type: 'whatever' }), config: {}, trace: {} });
    expect(outcome.kind === 'err' && outcome.error.message).toMatch(
      /^Check "conformance\.checks\.min-length" config schema failed to compile: /,
    );
  });

  it('passes the abort signal through as bindings.abortSignal', async () => {
    const controller = new AbortController();
    const outcome = await runCheck({
      check: check('virtual'),
      config: {},
      trace: {},
      abortSignal: controller.signal,
      importCheck: () => ({
        evaluate: (_c: unknown, _t: unknown, b: { abortSignal: AbortSignal }) => ({
          passed: true,
          sameSignal: b.abortSignal === controller.signal,
        }),
      }),
    });
    expect(outcome).toEqual({ kind: 'ok', value: { passed: true, sameSignal: true } });
  });

  it.each([
    ['check-default-function.mjs', { passed: true, shape: 'default-function', config: { a: 1 } }],
    ['check-default-object.mjs', { passed: true, shape: 'default-object' }],
    ['check-definition.mjs', { passed: false, reason: 'definition', shape: 'definition' }],
    ['check-named-check.mjs', { passed: true, shape: 'named-check' }],
  ])('resolves the evaluator of %s', async (file, result) => {
    const outcome = await runCheck({ check: check(file), config: { a: 1 }, trace: {} });
    expect(outcome).toEqual({ kind: 'ok', value: result });
  });

  it('prefers evaluate over default over check', async () => {
    const outcome = await runCheck({
      check: check('virtual'),
      config: {},
      trace: {},
      importCheck: () => ({ check: () => 'check', default: () => 'default', evaluate: () => 'evaluate' }),
    });
    expect(outcome).toEqual({ kind: 'ok', value: 'evaluate' });
  });

  it('check-shape-invalid when nothing evaluates', async () => {
    const modulePath = fixture('check-none.mjs');
    const outcome = await runCheck({ check: check('check-none.mjs'), config: {}, trace: {} });
    expect(outcome).toEqual({
      kind: 'err',
      error: {
        code: 'check-shape-invalid',
        message:
          `Module '${modulePath}' has no evaluate for check "conformance.checks.min-length": export \`evaluate\`, ` +
          '`default` or `check` as a function, an object with `evaluate`, or a definition whose `check` has one',
        checkId: 'conformance.checks.min-length',
      },
    });
  });

  it('handler-throw with the check message and cause', async () => {
    const outcome = await runCheck({ check: check('check-throws.mjs'), config: {}, trace: {} });
    expect(outcome.kind === 'err' && outcome.error).toMatchObject({
      code: 'handler-throw',
      message: 'Check "conformance.checks.min-length" evaluate() threw: RangeError: check boom',
      checkId: 'conformance.checks.min-length',
      cause: { name: 'RangeError', message: 'check boom' },
    });
  });

  it('handler-throw for a rejected promise and a thrown undefined', async () => {
    const rejected = await runCheck({
      check: check('virtual'),
      config: {},
      trace: {},
      importCheck: () => ({ evaluate: () => Promise.reject('nope') }),
    });
    expect(rejected.kind === 'err' && rejected.error.message).toBe(
      'Check "conformance.checks.min-length" evaluate() threw: nope',
    );
    const undef = await runCheck({
      check: check('virtual'),
      config: {},
      trace: {},
      importCheck: () => ({
        evaluate: () => {
          throw undefined;
        },
      }),
    });
    expect(undef.kind === 'err' && undef.error).toEqual({
      code: 'handler-throw',
      message: 'Check "conformance.checks.min-length" evaluate() threw: undefined',
      checkId: 'conformance.checks.min-length',
      cause: null,
    });
  });

  it('output-validation-failed for a result JSON cannot carry', async () => {
    const outcome = await runCheck({
      check: check('virtual'),
      config: {},
      trace: {},
      importCheck: () => ({ evaluate: () => ({ passed: true, attributes: { count: 3n } }) }),
    });
    expect(outcome).toEqual({
      kind: 'err',
      error: {
        code: 'output-validation-failed',
        message:
          'Check "conformance.checks.min-length" evaluate() returned a result JSON cannot carry at /attributes/count: a BigInt',
        checkId: 'conformance.checks.min-length',
        issues: [{ instancePath: '/attributes/count', message: 'must be a JSON value, got a BigInt' }],
      },
    });
  });

  it('handler-import-failed names the check module', async () => {
    const outcome = await runCheck({ check: check('import-throws.mjs'), config: {}, trace: {} });
    expect(outcome.kind === 'err' && outcome.error).toMatchObject({
      code: 'handler-import-failed',
      message: `Failed to import check module '${fixture('import-throws.mjs')}': TypeError: cannot start without CONFIG`,
      checkId: 'conformance.checks.min-length',
    });
  });
});
