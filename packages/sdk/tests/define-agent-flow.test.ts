import { describe, expect, it } from 'vitest';
import {
  defineAgent,
  defineFlow,
  defineGuardrail,
  defineTool,
  KindgiDefinitionError,
  primitiveKindOf,
} from '../src/index.js';

function messageOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof KindgiDefinitionError) return error.message;
    throw error;
  }
  throw new Error('expected a KindgiDefinitionError');
}

const tool = defineTool({ id: 'acme.lookup', description: 'Looks up.', handler: () => ({}) });
const guardrail = defineGuardrail({ id: 'acme.cites', action: 'halt', evaluate: () => ({ passed: true }) });

describe('defineAgent', () => {
  it('accepts tools and guardrails as definitions, ids and ranges', () => {
    const agent = defineAgent({
      id: 'acme.writer',
      version: '1.0.0',
      name: 'Writer',
      instructions: 'Write briefs.',
      capabilities: ['drafting'],
      tools: [tool, 'acme.search', { id: 'other.fetch', range: '^2.0.0' }],
      guardrails: [guardrail, 'acme.no-pii'],
      model: 'provider/model',
    });
    expect(primitiveKindOf(agent)).toBe('agent');
    expect(Object.isFrozen(agent)).toBe(true);
    expect(agent.tools?.[0]).toBe(tool);
    expect(agent.model).toBe('provider/model');
  });

  it.each([
    [{ instructions: '' }, 'defineAgent: "instructions" must be a non-empty string, got ""'],
    [{ tools: ['Search'] }, 'defineAgent: "tools[0]" must be "<pack-id>.<name>" in kebab-case, got "Search"'],
    [{ tools: [42] }, 'defineAgent: "tools[0]" must be a tool, a tool id or {id, range}, got number 42'],
    [{ guardrails: 'acme.x' }, 'defineAgent: "guardrails" must be a list, got "acme.x"'],
  ])('names the field of an invalid agent (%#)', (patch, message) => {
    const spec = { id: 'acme.writer', instructions: 'Write.', ...(patch as object) };
    expect(messageOf(() => defineAgent(spec as never))).toBe(message);
  });
});

describe('defineFlow', () => {
  const nodes = [
    { id: 'start', type: 'agent', agent: 'acme.writer' },
    { id: 'end', type: 'end' },
  ];

  it('returns frozen, marked data', () => {
    const flow = defineFlow({ id: 'acme.triage', version: '1.0.0', nodes, edges: [{ from: 'start', to: 'end' }] });
    expect(primitiveKindOf(flow)).toBe('flow');
    expect(Object.isFrozen(flow)).toBe(true);
    expect(flow.nodes).toEqual(nodes);
  });

  it.each([
    [{ nodes: undefined }, 'defineFlow: "nodes" must be a list, got nothing'],
    [{ edges: {} }, 'defineFlow: "edges" must be a list, got an object'],
    [{ nodes: [{ id: 'a' }, { id: 'a' }], edges: [] }, 'defineFlow: node id "a" is used twice'],
    [
      { edges: [{ from: 'start', to: 'nowhere' }] },
      'defineFlow: "edges[0].to" names "nowhere", which is not a node of this flow',
    ],
  ])('names the field of an invalid flow (%#)', (patch, message) => {
    const spec = { id: 'acme.triage', nodes, edges: [], ...(patch as object) };
    expect(messageOf(() => defineFlow(spec as never))).toBe(message);
  });
});
