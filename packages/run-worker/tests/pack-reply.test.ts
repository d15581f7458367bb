import type { CheckCall, RunCheckBinding } from '@kindgi/bindings';
import { err, ok, PACK_PROTOCOL_VERSION, packError } from '@kindgi/protocol';
import { describe, expect, it } from 'vitest';
import { checkGuardrail, readPackReply } from '../src/index.js';
import { guardrail } from './helpers.js';

const TRACE = { runId: 'r', tenantId: 't1', output: 'fine', mode: 'runtime' as const };

describe('readPackReply', () => {
  it('gives the expected answer, or the failure it is instead', () => {
    const result = { v: PACK_PROTOCOL_VERSION, kind: 'result' as const, output: 1 };
    expect(readPackReply(ok(result), 'result')).toEqual(ok(result));
    const refused = { code: 'pack-unavailable' as const, message: 'draining', status: 503 };
    expect(readPackReply(err(refused), 'result')).toEqual(err({ kind: 'transport', error: refused }));
    const thrown = packError('handler-throw', 'boom');
    expect(readPackReply(ok(thrown), 'result')).toEqual(err({ kind: 'pack-error', message: thrown }));
    expect(readPackReply(ok(result), 'check-result')).toEqual(
      err({ kind: 'wrong-kind', expected: 'check-result', received: 'result' }),
    );
  });
});

describe('checkGuardrail', () => {
  it("sends the guardrail's pack and configuration (the caller's values over its own)", async () => {
    const calls: CheckCall[] = [];
    const runCheck: RunCheckBinding = async (call) => {
      calls.push(call);
      return ok({ v: PACK_PROTOCOL_VERSION, kind: 'check-result', result: { passed: true } });
    };
    const tone = { ...guardrail('tone', 'tone-check', 'log-only'), config: { strict: false, limit: 3 } };
    expect(await checkGuardrail(runCheck, tone, TRACE, { config: { strict: true } })).toEqual(ok({ passed: true }));
    expect(calls[0]).toMatchObject({
      check: { id: 'tone-check' },
      packId: 'pack-demo',
      config: { strict: true, limit: 3 },
    });
  });

  it('refuses a verdict without a boolean passed, as the protocol parser does', async () => {
    // An in-process binding: nothing parsed this reply before the worker reads it.
    const runCheck: RunCheckBinding = async () =>
      ok({ v: PACK_PROTOCOL_VERSION, kind: 'check-result', result: { reason: 'no verdict' } as never });
    const verdict = await checkGuardrail(runCheck, guardrail('g', 'c', 'halt'), TRACE, {});
    expect(verdict).toMatchObject({ kind: 'err', error: { kind: 'malformed-check' } });
  });
});
