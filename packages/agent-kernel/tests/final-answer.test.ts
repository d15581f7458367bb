import { startScriptedModel } from '@kindgi/test-services/model-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAgentTurn } from '../src/index.js';
import { type KernelPack, startKernelPack, turnIo } from './helpers/kernel-pack.js';

let pack: KernelPack;
beforeAll(async () => {
  pack = await startKernelPack();
});
afterAll(() => pack.stop());

describe('a turn that ends in a final answer', () => {
  it.each([true, false])('streams (%s) the answer, with the instructions, the tools and usage', async (stream) => {
    const model = await startScriptedModel([{ kind: 'text', text: 'Hello there.' }]);
    try {
      const io = turnIo();
      const turn = await runAgentTurn(pack.bindings(model.url, { stream }), {
        tenantId: 't1',
        runId: 'run-1',
        agentId: 'kt.plain',
        input: { message: 'Hi' },
        conversation: [
          { role: 'user', content: 'Earlier question' },
          { role: 'assistant', content: 'Earlier answer' },
        ],
        ...io,
      });
      expect(turn).toMatchObject({
        kind: 'ok',
        value: {
          status: 'completed',
          answer: 'Hello there.',
          violations: [],
          usage: { inputTokens: 11, outputTokens: 7, totalTokens: 18 },
        },
      });
      const [request] = model.requests;
      expect(request?.authorization).toBe('Bearer sk-test');
      expect(request?.body.stream).toBe(stream);
      if (stream) expect(request?.body.stream_options).toEqual({ include_usage: true });
      expect(request?.body.messages.map((m) => [m.role, m.content])).toEqual([
        ['system', 'Answer from the case file.'],
        ['user', 'Earlier question'],
        ['assistant', 'Earlier answer'],
        ['user', 'Hi'],
      ]);
      expect(request?.body.tools).toEqual([
        {
          type: 'function',
          function: {
            name: 'kt_lookup',
            description: 'Looks a case up by id.',
            parameters: pack.index.tools.find((t) => t.id === 'kt.lookup')?.input,
          },
        },
      ]);
      const text = io.events
        .filter((e) => e.kind === 'model.text')
        .map((e) => (e.kind === 'model.text' ? e.delta : ''));
      expect(text.join('')).toBe(stream ? 'Hello there.' : '');
      expect(io.events.find((e) => e.kind === 'model.call')).toMatchObject({
        kind: 'model.call',
        step: 1,
        record: { model: 'scripted-1', finishReason: 'stop', usage: { totalTokens: 18 } },
      });
      if (turn.kind === 'ok' && turn.value.status === 'completed') {
        expect(turn.value.conversation.at(-1)).toEqual({ role: 'assistant', content: 'Hello there.' });
      }
    } finally {
      await model.close();
    }
  });

  it('refuses an unknown agent, an empty message, and an agent on a model the server lacks', async () => {
    const model = await startScriptedModel([{ kind: 'text', text: 'x' }]);
    try {
      const bindings = pack.bindings(model.url);
      const base = { tenantId: 't1', runId: 'r', input: { message: 'Hi' }, ...turnIo() };
      expect(await runAgentTurn(bindings, { ...base, agentId: 'kt.nobody' })).toMatchObject({
        error: { code: 'agent-not-found' },
      });
      expect(await runAgentTurn(bindings, { ...base, agentId: 'kt.plain', input: { message: '' } })).toMatchObject({
        error: { code: 'turn-input-invalid' },
      });
      const noModels = { ...bindings, models: { get: () => undefined } };
      expect(await runAgentTurn(noModels, { ...base, agentId: 'kt.plain' })).toMatchObject({
        error: { code: 'model-not-configured' },
      });
      expect(model.requests).toHaveLength(0);
    } finally {
      await model.close();
    }
  });
});
