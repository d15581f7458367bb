import { startScriptedModel } from '@kindgi/test-services/model-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAgentTurn } from '../src/index.js';
import { callOf, type KernelPack, startKernelPack, turnIo } from './helpers/kernel-pack.js';

let pack: KernelPack;
beforeAll(async () => {
  pack = await startKernelPack();
});
afterAll(() => pack.stop());

const turn = (mode?: 'ci') => ({
  tenantId: 't1',
  runId: 'run-g',
  agentId: 'kt.cited',
  input: { message: 'CASE-7?' },
  ...(mode ? { mode } : {}),
  ...turnIo(),
});

describe('pack guardrails, checked by the pack service on the final answer', () => {
  it('pass: the answer is kept; the check saw the trace; a ci-only guardrail is out of scope at runtime', async () => {
    const model = await startScriptedModel([
      { kind: 'tools', calls: [callOf('kt.lookup', { caseId: 'CASE-7' }, 'l1')] },
      { kind: 'text', text: 'See [CASE-7].' },
    ]);
    try {
      const io = turn();
      const result = await runAgentTurn(pack.bindings(model.url), io);
      expect(result).toMatchObject({
        value: { status: 'completed', answer: 'See [CASE-7].', violations: [], guardrailErrors: [] },
      });
      const check = pack.calls.find((c) => c.kind === 'check' && c.check.id === 'kt.checks.cites');
      expect(check).toMatchObject({
        kind: 'check',
        packId: 'kt',
        trace: {
          runId: 'run-g',
          tenantId: 't1',
          mode: 'runtime',
          userInput: 'CASE-7?',
          output: 'See [CASE-7].',
          toolCalls: [
            { toolCallId: 'l1', toolId: 'kt.lookup', toolName: 'kt.lookup', arguments: { caseId: 'CASE-7' } },
          ],
          toolResults: [{ toolCallId: 'l1', output: { caseId: 'CASE-7', title: 'Case CASE-7', source: '[CASE-7]' } }],
          modelCalls: [{ step: 1 }, { step: 2 }],
        },
      });
      const results = io.events.filter((e) => e.kind === 'guardrail.result');
      expect(results.map((e) => (e.kind === 'guardrail.result' ? [e.guardrailId, e.passed] : []))).toEqual([
        ['kt.cites', true],
        ['kt.polite', true],
      ]);
    } finally {
      await model.close();
    }
  });

  it('halt: a failed halt guardrail fails the turn and the answer is not returned', async () => {
    const model = await startScriptedModel([{ kind: 'text', text: 'Trust me.' }]);
    try {
      const result = await runAgentTurn(pack.bindings(model.url), turn());
      expect(result).toMatchObject({
        kind: 'err',
        error: {
          code: 'guardrail-violation',
          details: {
            guardrailId: 'kt.cites',
            violations: [
              { guardrailId: 'kt.cites', action: 'halt', severity: 'critical', reason: 'no citation; tools called: ' },
            ],
          },
        },
      });
      expect(JSON.stringify(result)).not.toContain('Trust me.');
    } finally {
      await model.close();
    }
  });

  it('report: any other action is reported in violations and the turn completes', async () => {
    const model = await startScriptedModel([{ kind: 'text', text: 'A rude answer [CASE-1].' }]);
    try {
      const result = await runAgentTurn(pack.bindings(model.url), turn());
      expect(result).toMatchObject({
        value: {
          status: 'completed',
          answer: 'A rude answer [CASE-1].',
          violations: [
            {
              guardrailId: 'kt.polite',
              checkId: 'kt.checks.polite',
              action: 'log-only',
              severity: 'warn',
              reason: 'rude',
            },
          ],
        },
      });
    } finally {
      await model.close();
    }
  });

  it('scope: a ci-only guardrail applies in ci mode', async () => {
    const model = await startScriptedModel([{ kind: 'text', text: 'See [CASE-7].' }]);
    try {
      const result = await runAgentTurn(pack.bindings(model.url), turn('ci'));
      expect(result).toMatchObject({ error: { code: 'guardrail-violation', details: { guardrailId: 'kt.ci-only' } } });
    } finally {
      await model.close();
    }
  });
});
