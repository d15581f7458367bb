import { createIndexAgentRegistry, createIndexToolRegistry, type PackCall } from '@kindgi/bindings';
import { ok, type PackIndex } from '@kindgi/protocol';
import { startScriptedModel } from '@kindgi/test-services/model-server';
import { describe, expect, it } from 'vitest';
import { type AgentKernelBindings, createOpenAiCompatibleModel, runAgentTurn } from '../src/index.js';
import { callOf, turnIo } from './helpers/kernel-pack.js';

function pack(
  packId: string,
  packVersion: string,
  tools: PackIndex['tools'],
  agents: PackIndex['agents'] = [],
): PackIndex {
  return {
    v: 1,
    packId,
    packVersion,
    artifactVersion: '1',
    publishedAt: '2026-01-01T00:00:00.000Z',
    tools,
    guardrails: [],
    agents,
    flows: [],
  };
}

const fetchTool = (version: string) => ({
  id: 'other.fetch',
  version,
  input: { type: 'object', description: `v${version}` },
  output: {},
  modulePath: 'f.js',
  mutating: false,
});

describe('a tool of another pack, by semver range', () => {
  it('calls the highest active version that matches, with that version’s own schema', async () => {
    const packs = [
      pack('other', '1.0.0', [fetchTool('1.2.0'), fetchTool('1.9.1'), fetchTool('2.0.0'), fetchTool('1.10.0-rc.1')]),
      pack(
        'acme',
        '1.0.0',
        [],
        [
          {
            id: 'acme.agent',
            version: '1.0.0',
            modulePath: 'a.js',
            instructions: 'x',
            tools: [{ id: 'other.fetch', range: '^1.2.0' }],
          },
        ],
      ),
    ];
    const model = await startScriptedModel([
      { kind: 'tools', calls: [callOf('other.fetch', {})] },
      { kind: 'text', text: 'ok' },
    ]);
    try {
      const calls: PackCall[] = [];
      const bindings: AgentKernelBindings = {
        agents: createIndexAgentRegistry(packs),
        tools: createIndexToolRegistry(packs),
        callPack: async (call) => {
          calls.push(call);
          return ok({ v: 2, kind: 'result', output: { fetched: true } });
        },
        models: {
          get: () => createOpenAiCompatibleModel({ baseUrl: model.url, model: 'm', timeoutMs: 5_000, maxRetries: 0 }),
        },
      };
      const result = await runAgentTurn(bindings, {
        tenantId: 't',
        runId: 'r',
        agentId: 'acme.agent',
        input: { message: 'go' },
        ...turnIo(),
      });
      expect(result).toMatchObject({ value: { status: 'completed' } });
      expect(calls).toMatchObject([{ kind: 'invoke', tool: { id: 'other.fetch', version: '1.9.1' }, packId: 'other' }]);
      expect(model.requests[0]?.body.tools?.[0]?.function.parameters).toEqual({
        type: 'object',
        description: 'v1.9.1',
      });
    } finally {
      await model.close();
    }
  });

  it('fails the turn before the model when no active version matches', async () => {
    const packs = [
      pack('other', '1.0.0', [fetchTool('2.0.0')]),
      pack(
        'acme',
        '1.0.0',
        [],
        [
          {
            id: 'acme.agent',
            version: '1.0.0',
            modulePath: 'a.js',
            instructions: 'x',
            tools: [{ id: 'other.fetch', range: '^1.2.0' }],
          },
        ],
      ),
    ];
    const bindings: AgentKernelBindings = {
      agents: createIndexAgentRegistry(packs),
      tools: createIndexToolRegistry(packs),
      callPack: async () => ok({ v: 2, kind: 'result', output: {} }),
      models: { get: () => undefined },
    };
    const result = await runAgentTurn(bindings, {
      tenantId: 't',
      runId: 'r',
      agentId: 'acme.agent',
      input: { message: 'go' },
      ...turnIo(),
    });
    expect(result).toMatchObject({
      error: {
        code: 'agent-tool-unresolved',
        message:
          'Agent "acme.agent" calls tool "other.fetch", which has no active version matching "^1.2.0" (active: 2.0.0)',
      },
    });
  });
});
