import { startScriptedModel } from '@kindgi/test-services/model-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resumeAgentTurn, runAgentTurn, type TurnState } from '../src/index.js';
import { callOf, type KernelPack, startKernelPack, turnIo } from './helpers/kernel-pack.js';

let pack: KernelPack;
beforeAll(async () => {
  pack = await startKernelPack();
});
afterAll(() => pack.stop());

const sends = () => (globalThis as { __ktSends?: number }).__ktSends ?? 0;

/** A turn of kt.writer (approval gates on) that reaches kt.send after a read-only lookup, suspended. */
async function suspended(modelUrl: string): Promise<TurnState> {
  const io = {
    tenantId: 't1',
    runId: 'run-hitl',
    agentId: 'kt.writer',
    input: { message: 'Write to them' },
    ...turnIo(),
  };
  const result = await runAgentTurn(pack.bindings(modelUrl), io);
  if (result.kind !== 'ok' || result.value.status !== 'suspended')
    throw new Error(`not suspended: ${JSON.stringify(result)}`);
  expect(result.value.approval).toEqual({
    approvalId: 'approval-1',
    toolCallId: 's1',
    toolId: 'kt.send',
    version: '1.0.0',
    arguments: { text: 'Hi there' },
    reason: 'not-read-only',
  });
  expect(io.events.at(-1)).toMatchObject({ kind: 'approval.requested', approval: { approvalId: 'approval-1' } });
  // What a run store keeps: JSON, and back.
  return JSON.parse(JSON.stringify(result.value.state)) as TurnState;
}

const script = () =>
  startScriptedModel([
    { kind: 'tools', calls: [callOf('kt.lookup', { caseId: 'CASE-1' }, 'l1')] },
    { kind: 'tools', calls: [callOf('kt.send', { text: 'Hi there' }, 's1')] },
    { kind: 'text', text: 'Done.' },
  ]);

describe('approval gates', () => {
  it('suspends before the first use of a tool that is not read-only; approve runs it and the turn goes on', async () => {
    const model = await script();
    try {
      const before = sends();
      const state = await suspended(model.url);
      expect(sends()).toBe(before);
      const io = turnIo();
      const resumed = await resumeAgentTurn(pack.bindings(model.url), {
        state,
        decision: { approvalId: 'approval-1', decision: 'approve' },
        ...io,
      });
      expect(resumed).toMatchObject({ value: { status: 'completed', answer: 'Done.', usage: { totalTokens: 54 } } });
      expect(sends()).toBe(before + 1);
      expect(io.events[0]).toEqual({
        kind: 'approval.completed',
        approvalId: 'approval-1',
        toolId: 'kt.send',
        decision: 'approve',
      });
      const last = model.requests[2]?.body.messages.at(-1);
      expect(last).toMatchObject({ role: 'tool', tool_call_id: 's1' });
      expect(JSON.parse(last?.content as string)).toEqual({ sent: true, length: 8 });
    } finally {
      await model.close();
    }
  });

  it('deny: the tool never runs and the model is told it was denied', async () => {
    const model = await script();
    try {
      const before = sends();
      const state = await suspended(model.url);
      const decision = { approvalId: 'approval-1', decision: 'deny' as const, reason: 'not today' };
      const resumed = await resumeAgentTurn(pack.bindings(model.url), { state, decision, ...turnIo() });
      expect(resumed).toMatchObject({ value: { status: 'completed', answer: 'Done.' } });
      expect(sends()).toBe(before);
      const last = model.requests[2]?.body.messages.at(-1);
      expect(JSON.parse(last?.content as string)).toEqual({
        error: { code: 'tool-denied', message: 'The call was denied: not today' },
      });
    } finally {
      await model.close();
    }
  });

  it('refuses a decision on an approval the turn does not wait for', async () => {
    const model = await script();
    try {
      const state = await suspended(model.url);
      const resumed = await resumeAgentTurn(pack.bindings(model.url), {
        state,
        decision: { approvalId: 'other', decision: 'approve' },
        ...turnIo(),
      });
      expect(resumed).toMatchObject({ error: { code: 'turn-input-invalid' } });
    } finally {
      await model.close();
    }
  });
});
