import { describe, expect, expectTypeOf, it } from 'vitest';
import { type AgentConversationPolicy, defineAgent, KindgiDefinitionError } from '../src/index.js';

function messageOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof KindgiDefinitionError) return error.message;
    throw error;
  }
  throw new Error('expected a KindgiDefinitionError');
}

describe('defineAgent: what a turn needs', () => {
  it('keeps the model, the tool-error policy and the conversation policy', () => {
    const agent = defineAgent({
      id: 'acme.writer',
      description: 'Writes briefs.',
      instructions: 'Write briefs.',
      model: 'fast',
      toolErrors: ['tool-error', 'input-validation-failed'],
      conversationPolicy: { hitl: { tools: ['acme.lookup'], exempt: ['acme.send'] }, maxSteps: 8, maxToolCalls: 20 },
    });
    expect(agent).toMatchObject({
      model: 'fast',
      toolErrors: ['tool-error', 'input-validation-failed'],
      conversationPolicy: { hitl: { tools: ['acme.lookup'] }, maxSteps: 8 },
    });
    expectTypeOf(agent.conversationPolicy).toMatchTypeOf<AgentConversationPolicy | undefined>();
  });

  it('takes hitl as a boolean', () => {
    const agent = defineAgent({ id: 'acme.a', instructions: 'x', conversationPolicy: { hitl: true } });
    expect(agent.conversationPolicy?.hitl).toBe(true);
  });

  it.each([
    [{ model: '' }, 'defineAgent: "model" must be a non-empty string, got ""'],
    [{ toolErrors: 'tool-error' }, 'defineAgent: "toolErrors" must be a list of strings, got "tool-error"'],
    [
      { toolErrors: ['Tool Error'] },
      'defineAgent: "toolErrors[0]" must be an error code in kebab-case, got "Tool Error"',
    ],
    [{ toolErrors: ['tool-error', 'tool-error'] }, 'defineAgent: "toolErrors" lists "tool-error" twice'],
    [{ conversationPolicy: true }, 'defineAgent: "conversationPolicy" must be an object, got boolean true'],
    [
      { conversationPolicy: { maxSteps: 0 } },
      'defineAgent: "conversationPolicy.maxSteps" must be a whole number from 1 to 100, got number 0',
    ],
    [
      { conversationPolicy: { maxToolCalls: 1001 } },
      'defineAgent: "conversationPolicy.maxToolCalls" must be a whole number from 1 to 1000, got number 1001',
    ],
    [
      { conversationPolicy: { hitl: 'yes' } },
      'defineAgent: "conversationPolicy.hitl" must be true, false or an object, got "yes"',
    ],
    [
      { conversationPolicy: { hitl: { ask: true } } },
      'defineAgent: "conversationPolicy.hitl" takes enabled, tools and exempt, not "ask"',
    ],
    [
      { conversationPolicy: { hitl: { enabled: 1 } } },
      'defineAgent: "conversationPolicy.hitl.enabled" must be true or false, got number 1',
    ],
    [
      { conversationPolicy: { hitl: { tools: ['Lookup'] } } },
      'defineAgent: "conversationPolicy.hitl.tools[0]" must be "<pack-id>.<name>" in kebab-case, got "Lookup"',
    ],
  ])('names the field of an invalid policy (%#)', (patch, message) => {
    const spec = { id: 'acme.writer', instructions: 'Write.', ...(patch as object) };
    expect(messageOf(() => defineAgent(spec as never))).toBe(message);
  });
});
