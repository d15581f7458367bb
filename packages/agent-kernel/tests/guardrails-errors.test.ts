import { startScriptedModel } from '@kindgi/test-services/model-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAgentTurn } from '../src/index.js';
import { type KernelPack, startKernelPack, turnIo } from './helpers/kernel-pack.js';

let pack: KernelPack;
beforeAll(async () => {
  pack = await startKernelPack();
});
afterAll(() => pack.stop());

const turn = (agentId: string) => ({ tenantId: 't1', runId: 'run-e', agentId, input: { message: 'Hi' }, ...turnIo() });

describe('guardrails that cannot be evaluated, or do not exist', () => {
  it('a check that throws is an evaluation error, not a violation', async () => {
    const model = await startScriptedModel([{ kind: 'text', text: 'Fine.' }]);
    try {
      const io = turn('kt.throwing');
      const result = await runAgentTurn(pack.bindings(model.url), io);
      expect(result).toMatchObject({
        value: {
          status: 'completed',
          answer: 'Fine.',
          violations: [],
          guardrailErrors: [{ guardrailId: 'kt.throws-log', action: 'log-only', code: 'handler-throw' }],
        },
      });
      expect(io.events.find((e) => e.kind === 'guardrail.result')).toMatchObject({
        guardrailId: 'kt.throws-log',
        error: { code: 'handler-throw' },
      });
    } finally {
      await model.close();
    }
  });

  it('a halt guardrail that cannot be evaluated fails the turn', async () => {
    const model = await startScriptedModel([{ kind: 'text', text: 'Fine.' }]);
    try {
      const result = await runAgentTurn(pack.bindings(model.url), turn('kt.throwing-halt'));
      expect(result).toMatchObject({
        error: {
          code: 'guardrail-evaluation-failed',
          details: { guardrailId: 'kt.throws-halt', code: 'handler-throw' },
        },
      });
    } finally {
      await model.close();
    }
  });

  it('a guardrail id with no registered guardrail fails the turn before the model is called', async () => {
    const model = await startScriptedModel([{ kind: 'text', text: 'never' }]);
    try {
      const result = await runAgentTurn(pack.bindings(model.url), turn('kt.missing'));
      expect(result).toEqual({
        kind: 'err',
        error: {
          code: 'agent-guardrails-missing',
          message: 'Agent "kt.missing" references guardrails not in the registry: kt.nope',
          details: { agentId: 'kt.missing', guardrails: ['kt.nope'] },
        },
      });
      expect(model.requests).toHaveLength(0);
    } finally {
      await model.close();
    }
  });
});
