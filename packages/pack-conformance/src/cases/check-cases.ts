import { expect, it } from 'vitest';
import { checkCall, invoke, type SuiteContext } from '../context.js';

/** Each check outcome, through the fixture's two checks. */
export function checkCases(context: SuiteContext): void {
  const minLength = 'conformance.checks.min-length';

  it('answers a passing and a failing check-result', async () => {
    const service = context.shared();
    const pass = await invoke(service, checkCall(minLength, { minLength: 3 }, { output: 'hello' }));
    expect(pass.body).toMatchObject({ v: 2, kind: 'check-result', result: { passed: true } });
    const fail = await invoke(service, checkCall(minLength, { minLength: 10 }, { output: 'hello' }));
    expect(fail.body).toEqual({ v: 2, kind: 'check-result', result: { passed: false, reason: 'too short' } });
  });

  it('passes the config as sent, without filling defaults (the check applies its own)', async () => {
    const reply = await invoke(context.shared(), checkCall(minLength, {}, { output: '' }));
    expect(reply.body).toEqual({ v: 2, kind: 'check-result', result: { passed: false, reason: 'too short' } });
  });

  it('refuses a config that fails its schema', async () => {
    const reply = await invoke(context.shared(), checkCall(minLength, { minLength: -1 }, { output: 'x' }));
    expect(reply.body).toMatchObject({
      v: 2,
      kind: 'error',
      code: 'input-validation-failed',
      message: `Check "${minLength}" config failed validation at /minLength: must be >= 0`,
      checkId: minLength,
      issues: [{ instancePath: '/minLength', keyword: 'minimum', params: { limit: 0 } }],
    });
  });

  it('answers handler-throw when evaluate() throws', async () => {
    const reply = await invoke(context.shared(), checkCall('conformance.checks.throws', {}, { output: 'x' }));
    expect(reply.body).toMatchObject({
      v: 2,
      kind: 'error',
      code: 'handler-throw',
      message: 'Check "conformance.checks.throws" evaluate() threw: Error: check boom',
      checkId: 'conformance.checks.throws',
      cause: { name: 'Error', message: 'check boom' },
    });
  });

  it('answers check-not-in-pack for an unknown check', async () => {
    const reply = await invoke(context.shared(), checkCall('conformance.checks.nope', {}, {}));
    expect(reply.body).toMatchObject({
      v: 2,
      kind: 'error',
      code: 'check-not-in-pack',
      message: 'This pack has no check "conformance.checks.nope"',
      checkId: 'conformance.checks.nope',
    });
  });
}
