import { startScriptedModel } from '@kindgi/test-services/model-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAgentTurn } from '../src/index.js';
import { callOf, type KernelPack, startKernelPack, turnIo } from './helpers/kernel-pack.js';

let pack: KernelPack;
beforeAll(async () => {
  pack = await startKernelPack();
});
afterAll(() => pack.stop());

const turn = (agentId: string) => ({
  tenantId: 't1',
  runId: 'run-tools',
  agentId,
  input: { message: 'Look at CASE-1' },
  ...turnIo(),
});

describe('tool calls', () => {
  it('runs one tool call through the pack pipeline and gives the model its result', async () => {
    const model = await startScriptedModel([
      { kind: 'tools', calls: [callOf('kt.lookup', { caseId: 'CASE-1' }, 'call_a')] },
      { kind: 'text', text: 'Case CASE-1 it is.' },
    ]);
    try {
      const input = turn('kt.plain');
      const result = await runAgentTurn(pack.bindings(model.url), input);
      expect(result).toMatchObject({
        kind: 'ok',
        value: { status: 'completed', answer: 'Case CASE-1 it is.', usage: { totalTokens: 36 } },
      });
      const invoke = pack.calls.at(-1);
      expect(invoke).toMatchObject({
        kind: 'invoke',
        tool: { id: 'kt.lookup', version: '1.0.0' },
        input: { caseId: 'CASE-1' },
        ctx: { tenantId: 't1', runId: 'run-tools', requestId: 'call_a' },
        packId: 'kt',
        deadlineMs: 120_000,
      });
      const second = model.requests[1]?.body.messages ?? [];
      expect(second.at(-2)).toMatchObject({
        role: 'assistant',
        tool_calls: [{ id: 'call_a', function: { name: 'kt_lookup' } }],
      });
      expect(second.at(-1)).toEqual({
        role: 'tool',
        tool_call_id: 'call_a',
        content: JSON.stringify({ caseId: 'CASE-1', title: 'Case CASE-1', source: '[CASE-1]' }),
      });
      const kinds = input.events.map((e) => e.kind).filter((kind) => kind !== 'model.text');
      expect(kinds).toEqual(['model.call', 'tool.call', 'tool.result', 'model.call']);
    } finally {
      await model.close();
    }
  });

  it('runs parallel tool calls together and answers them in the order asked', async () => {
    const model = await startScriptedModel([
      {
        kind: 'tools',
        calls: [
          callOf('kt.lookup', { caseId: 'CASE-1' }, 'c1'),
          callOf('kt.lookup', { caseId: 'CASE-2' }, 'c2'),
          callOf('kt.lookup', { caseId: 'CASE-3' }, 'c3'),
        ],
      },
      { kind: 'text', text: 'Three cases.' },
    ]);
    try {
      const result = await runAgentTurn(pack.bindings(model.url), turn('kt.plain'));
      expect(result).toMatchObject({ value: { status: 'completed', answer: 'Three cases.' } });
      const tools = (model.requests[1]?.body.messages ?? []).filter((m) => m.role === 'tool');
      expect(tools.map((m) => m.tool_call_id)).toEqual(['c1', 'c2', 'c3']);
      expect(tools.map((m) => JSON.parse(m.content as string).caseId)).toEqual(['CASE-1', 'CASE-2', 'CASE-3']);
      expect(model.requests[0]?.body.parallel_tool_calls).toBe(true);
    } finally {
      await model.close();
    }
  });

  it('shows malformed arguments, an unknown tool and a throwing tool to the model when toolErrors lists them', async () => {
    const model = await startScriptedModel([
      {
        kind: 'tools',
        calls: [
          callOf('kt.lookup', '{"caseId": ', 'bad-json'),
          callOf('kt.lookup', { caseId: 'nope' }, 'bad-input'),
          callOf('kt.missing-tool', {}, 'unknown'),
          callOf('kt.fail', {}, 'throws'),
        ],
      },
      { kind: 'text', text: 'Recovered.' },
    ]);
    try {
      const result = await runAgentTurn(pack.bindings(model.url), turn('kt.tolerant'));
      expect(result).toMatchObject({ value: { status: 'completed', answer: 'Recovered.' } });
      const tools = (model.requests[1]?.body.messages ?? []).filter((m) => m.role === 'tool');
      const errors = tools.map((m) => [m.tool_call_id, JSON.parse(m.content as string).error.code]);
      expect(errors).toEqual([
        ['bad-json', 'input-validation-failed'],
        ['bad-input', 'input-validation-failed'],
        ['unknown', 'tool-not-found'],
        ['throws', 'tool-error'],
      ]);
    } finally {
      await model.close();
    }
  });

  it.each([
    ['malformed arguments', callOf('kt.lookup', 'not json'), 'input-validation-failed'],
    ['invalid arguments', callOf('kt.lookup', { caseId: 42 }), 'input-validation-failed'],
    ['an unknown tool', callOf('kt.nowhere', {}), 'tool-not-found'],
  ])('fails the turn on %s when toolErrors does not list it', async (_what, call, code) => {
    const model = await startScriptedModel([
      { kind: 'tools', calls: [call] },
      { kind: 'text', text: 'never' },
    ]);
    try {
      const result = await runAgentTurn(pack.bindings(model.url), turn('kt.plain'));
      expect(result).toMatchObject({ kind: 'err', error: { code: 'tool-call-failed', details: { code } } });
      expect(model.requests).toHaveLength(1);
    } finally {
      await model.close();
    }
  });
});
