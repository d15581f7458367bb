import { startScriptedModel } from '@kindgi/test-services/model-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAgentTurn } from '../src/index.js';
import { callOf, type KernelPack, startKernelPack, turnIo } from './helpers/kernel-pack.js';

let pack: KernelPack;
beforeAll(async () => {
  pack = await startKernelPack();
});
afterAll(() => pack.stop());

const sends = () => (globalThis as { __ktSends?: number }).__ktSends ?? 0;

describe('a dry run', () => {
  it('runs read-only tools and stops before the first tool that writes, naming what it would call', async () => {
    const model = await startScriptedModel([
      { kind: 'tools', calls: [callOf('kt.lookup', { caseId: 'CASE-1' }, 'l1')] },
      {
        kind: 'tools',
        calls: [callOf('kt.lookup', { caseId: 'CASE-2' }, 'l2'), callOf('kt.send', { text: 'Hello' }, 's1')],
      },
      { kind: 'text', text: 'never reached' },
    ]);
    try {
      const before = sends();
      const io = {
        tenantId: 't1',
        runId: 'run-dry',
        agentId: 'kt.ungated',
        input: { message: 'Send it' },
        dryRun: true,
        ...turnIo(),
      };
      const result = await runAgentTurn(pack.bindings(model.url), io);
      expect(result).toEqual({
        kind: 'ok',
        value: {
          status: 'dry-run-stopped',
          stoppedAt: {
            toolCallId: 's1',
            toolId: 'kt.send',
            version: '1.0.0',
            arguments: { text: 'Hello' },
            reason: 'effect',
            effect: 'writes',
          },
          wouldCall: [
            { toolCallId: 'l2', toolId: 'kt.lookup', version: '1.0.0', arguments: { caseId: 'CASE-2' } },
            { toolCallId: 's1', toolId: 'kt.send', version: '1.0.0', arguments: { text: 'Hello' } },
          ],
          usage: { inputTokens: 22, outputTokens: 14, totalTokens: 36 },
        },
      });
      expect(sends()).toBe(before);
      expect(model.requests).toHaveLength(2);
      expect(io.events.at(-1)).toMatchObject({ kind: 'dry-run.stopped', stoppedAt: { toolId: 'kt.send' } });
    } finally {
      await model.close();
    }
  });

  it('without dryRun the same tool runs', async () => {
    const model = await startScriptedModel([
      { kind: 'tools', calls: [callOf('kt.send', { text: 'Hello' }, 's1')] },
      { kind: 'text', text: 'Sent.' },
    ]);
    try {
      const before = sends();
      const io = {
        tenantId: 't1',
        runId: 'run-wet',
        agentId: 'kt.ungated',
        input: { message: 'Send it' },
        ...turnIo(),
      };
      expect(await runAgentTurn(pack.bindings(model.url), io)).toMatchObject({
        value: { status: 'completed', answer: 'Sent.' },
      });
      expect(sends()).toBe(before + 1);
    } finally {
      await model.close();
    }
  });
});
