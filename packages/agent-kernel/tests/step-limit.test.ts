import { startScriptedModel } from '@kindgi/test-services/model-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_STEPS, runAgentTurn } from '../src/index.js';
import { callOf, type KernelPack, startKernelPack, turnIo } from './helpers/kernel-pack.js';

let pack: KernelPack;
beforeAll(async () => {
  pack = await startKernelPack();
});
afterAll(() => pack.stop());

const turn = (agentId: string) => ({
  tenantId: 't1',
  runId: 'run-loop',
  agentId,
  input: { message: 'Loop' },
  ...turnIo(),
});

describe('the step limit', () => {
  it('stops a model that calls the same tool forever at the default limit of model calls', async () => {
    const model = await startScriptedModel((i) => ({
      kind: 'tools',
      calls: [callOf('kt.lookup', { caseId: 'CASE-1' }, `c${i}`)],
    }));
    try {
      const before = pack.calls.length;
      const result = await runAgentTurn(pack.bindings(model.url), turn('kt.plain'));
      expect(result).toMatchObject({
        kind: 'err',
        error: { code: 'agent-step-limit', details: { maxSteps: DEFAULT_MAX_STEPS } },
      });
      expect(model.requests).toHaveLength(DEFAULT_MAX_STEPS);
      expect(pack.calls.length - before).toBe(DEFAULT_MAX_STEPS);
    } finally {
      await model.close();
    }
  });

  it("keeps to the agent's own maxSteps", async () => {
    const model = await startScriptedModel((i) => ({
      kind: 'tools',
      calls: [callOf('kt.lookup', { caseId: 'CASE-1' }, `c${i}`)],
    }));
    try {
      const result = await runAgentTurn(pack.bindings(model.url), turn('kt.limited'));
      expect(result).toMatchObject({ error: { code: 'agent-step-limit', details: { maxSteps: 5 } } });
      expect(model.requests).toHaveLength(5);
    } finally {
      await model.close();
    }
  });

  it('refuses 1,000 calls of the same tool in one answer without running any', async () => {
    const calls = Array.from({ length: 1000 }, (_, i) => callOf('kt.lookup', { caseId: 'CASE-1' }, `c${i}`));
    const model = await startScriptedModel([{ kind: 'tools', calls }]);
    try {
      const before = pack.calls.length;
      const result = await runAgentTurn(pack.bindings(model.url), turn('kt.limited'));
      expect(result).toMatchObject({ error: { code: 'agent-step-limit', details: { maxToolCalls: 50 } } });
      expect(pack.calls.length).toBe(before);
    } finally {
      await model.close();
    }
  });
});
