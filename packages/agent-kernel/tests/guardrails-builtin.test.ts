import { startScriptedModel } from '@kindgi/test-services/model-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAgentTurn } from '../src/index.js';
import { callOf, type KernelPack, startKernelPack, turnIo } from './helpers/kernel-pack.js';

let pack: KernelPack;
beforeAll(async () => {
  pack = await startKernelPack();
});
afterAll(() => pack.stop());

const turn = () => ({
  tenantId: 't1',
  runId: 'run-b',
  agentId: 'kt.builtin',
  input: { message: 'Tell me' },
  ...turnIo(),
});

describe('built-in checks, evaluated by the runtime', () => {
  it('forbidden-substring halts; no pack is asked for the check', async () => {
    const model = await startScriptedModel([{ kind: 'text', text: 'The SECRET is 42.' }]);
    try {
      const before = pack.calls.length;
      const result = await runAgentTurn(pack.bindings(model.url), turn());
      expect(result).toMatchObject({
        error: {
          code: 'guardrail-violation',
          details: { guardrailId: 'kt.no-secret', checkId: 'forbidden-substring' },
        },
      });
      expect(pack.calls.slice(before).filter((c) => c.kind === 'check')).toEqual([]);
    } finally {
      await model.close();
    }
  });

  it('max-tool-calls reports (log-only) a turn over its limit', async () => {
    const model = await startScriptedModel([
      {
        kind: 'tools',
        calls: [callOf('kt.lookup', { caseId: 'CASE-1' }), callOf('kt.lookup', { caseId: 'CASE-2' }, 'x2')],
      },
      { kind: 'text', text: 'Two cases.' },
    ]);
    try {
      const result = await runAgentTurn(pack.bindings(model.url), turn());
      expect(result).toMatchObject({
        value: {
          status: 'completed',
          violations: [
            {
              guardrailId: 'kt.max-calls',
              checkId: 'max-tool-calls',
              action: 'log-only',
              reason: 'The turn made 2 tool calls; at most 1 allowed',
            },
          ],
        },
      });
    } finally {
      await model.close();
    }
  });
});
