import type { CheckCall, GuardrailDescriptor } from '@kindgi/bindings';
import { ok, packError, RESERVED_CHECK_IDS, type RunTrace } from '@kindgi/protocol';
import { describe, expect, it } from 'vitest';
import { checkGuardrail } from '../src/index.js';

const trace: RunTrace = {
  runId: 'r1',
  tenantId: 't1',
  mode: 'runtime',
  output: 'Per [Smith v. Jones] the answer is yes.',
  toolCalls: [
    { toolCallId: 'a', toolId: 'acme.lookup', toolName: 'acme.lookup', arguments: {} },
    { toolCallId: 'b', toolId: 'acme.cite', toolName: 'acme.cite', arguments: {} },
  ],
};

function builtIn(checkId: string, config: Record<string, unknown>): GuardrailDescriptor {
  return {
    id: `acme.${checkId}`,
    packId: 'acme',
    checkId,
    kind: 'zero-llm',
    action: { 'on-violation': 'halt' },
    severity: 'error',
    config,
  };
}

// A pack asked for a built-in would answer check-shape-invalid (no module ships it): the runtime must not ask.
const packs: CheckCall[] = [];
const runCheck = async (call: CheckCall) => {
  packs.push(call);
  return ok(packError('check-shape-invalid', 'no evaluate'));
};

describe('built-in checks are evaluated by the runtime, not a pack', () => {
  it.each([
    ['must-cite', {}, true],
    ['must-cite', { min: 2 }, false],
    ['never-call-tool', { tools: ['acme.delete'] }, true],
    ['never-call-tool', { tools: ['acme.cite'] }, false],
    ['max-tool-calls', { max: 2 }, true],
    ['max-tool-calls', { max: 0, tool: 'acme.cite' }, false],
    ['output-matches', { pattern: '^Per ' }, true],
    ['output-matches', { pattern: 'no', flags: 'i' }, false],
    ['tool-order', { order: ['acme.lookup', 'acme.cite'] }, true],
    ['tool-order', { order: ['acme.cite', 'acme.lookup'] }, false],
    ['tool-order', { order: ['acme.lookup', 'acme.other'], requireAll: true }, false],
    ['required-substring', { substrings: ['smith'], caseSensitive: false }, true],
    ['required-substring', { substrings: ['smith'] }, false],
    ['forbidden-substring', { substrings: ['maybe'] }, true],
    ['forbidden-substring', { substrings: ['YES'], caseSensitive: false }, false],
  ])('%s %j → passed %s', async (checkId, config, passed) => {
    const verdict = await checkGuardrail(runCheck, builtIn(checkId, config), trace, {});
    expect(verdict).toMatchObject({ kind: 'ok', value: { passed } });
    if (!passed) expect(verdict.kind === 'ok' && typeof verdict.value.reason).toBe('string');
    expect(packs).toEqual([]);
  });

  it('covers every reserved id', async () => {
    for (const checkId of RESERVED_CHECK_IDS) {
      const verdict = await checkGuardrail(runCheck, builtIn(checkId, {}), trace, {});
      expect(verdict.kind === 'ok' || verdict.error.kind === 'pack-error').toBe(true);
    }
    expect(packs).toEqual([]);
  });

  it('a config the built-in refuses is an evaluation error, not a verdict', async () => {
    const verdict = await checkGuardrail(runCheck, builtIn('output-matches', { pattern: '(' }), trace, {});
    expect(verdict).toMatchObject({
      kind: 'err',
      error: { kind: 'pack-error', message: { code: 'input-validation-failed', checkId: 'output-matches' } },
    });
    const missing = await checkGuardrail(runCheck, builtIn('never-call-tool', {}), trace, {});
    expect(missing).toMatchObject({ kind: 'err', error: { message: { code: 'input-validation-failed' } } });
  });
});
