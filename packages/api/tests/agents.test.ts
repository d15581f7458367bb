import type { AgentDescriptor, AgentRegistry } from '@kindgi/bindings';
import { describe, expect, it } from 'vitest';
import { AUTH_A, AUTH_B, envelope, jsonPost, makeApp } from './helpers.js';

const AGENT: AgentDescriptor = {
  id: 'acme.helper',
  version: '1.0.0',
  packId: 'acme',
  instructions: 'Help.',
  tools: [],
  guardrails: [],
  toolErrors: [],
};

const registry: AgentRegistry = {
  listAgents: async () => [AGENT],
  getAgent: async (_tenantId, agentId) => (agentId === AGENT.id ? AGENT : null),
  listToolVersions: async () => [],
};

describe('/v1/agents and agent runs', () => {
  it('lists and describes the registry’s agents; an unknown one is 404 agent-not-found', async () => {
    const { app } = makeApp({ agents: { registry } });
    const list = await app.request('/v1/agents', { headers: AUTH_A });
    expect(await list.json()).toEqual({ data: [AGENT], hasMore: false });
    expect(await (await app.request('/v1/agents/acme.helper', { headers: AUTH_A })).json()).toEqual(AGENT);
    const missing = await app.request('/v1/agents/acme.nobody', { headers: AUTH_A });
    expect(missing.status).toBe(404);
    expect((await envelope(missing)).code).toBe('agent-not-found');
  });

  it('answers an agent run 404 for an unknown agent and 501 agents-unsupported without models', async () => {
    const { app } = makeApp({ agents: { registry } });
    const unknown = await app.request('/v1/runs', jsonPost({ agentId: 'acme.nobody', input: { message: 'hi' } }));
    expect(unknown.status).toBe(404);
    expect((await envelope(unknown)).code).toBe('agent-not-found');
    const known = await app.request('/v1/runs', jsonPost({ agentId: 'acme.helper', input: { message: 'hi' } }));
    expect(known.status).toBe(501);
    expect((await envelope(known)).code).toBe('agents-unsupported');
  });

  it('refuses bad agent run bodies: both ids, no id, a bad input, tool-run fields', async () => {
    const { app } = makeApp({ agents: { registry, models: { get: () => undefined } } });
    const post = async (body: unknown) => {
      const res = await app.request('/v1/runs', jsonPost(body));
      return { status: res.status, code: (await envelope(res)).code };
    };
    expect(await post({ agentId: 'acme.helper', toolId: 'echo', input: {} })).toMatchObject({ status: 400 });
    expect(await post({ input: {} })).toMatchObject({ status: 400 });
    expect(await post({ agentId: 'acme.helper', input: { message: '' } })).toEqual({
      status: 400,
      code: 'validation-failed',
    });
    expect(await post({ agentId: 'acme.helper', input: { message: 'x' }, guardrails: ['g'] })).toEqual({
      status: 400,
      code: 'bad-input',
    });
    expect(await post({ toolId: 'echo', input: {}, options: { dryRun: true } })).toEqual({
      status: 400,
      code: 'bad-input',
    });
  });

  it('mounts /v1/approvals: unknown ids are 404 approval-not-found, for every tenant; a bad decision is 400', async () => {
    const { app } = makeApp({ agents: { registry } });
    expect(await (await app.request('/v1/approvals', { headers: AUTH_A })).json()).toEqual({
      data: [],
      hasMore: false,
    });
    for (const headers of [AUTH_A, AUTH_B]) {
      const got = await app.request('/v1/approvals/nope', { headers });
      expect((await envelope(got)).code).toBe('approval-not-found');
    }
    const done = await app.request('/v1/approvals/nope/complete', jsonPost({ decision: 'approve' }));
    expect(done.status).toBe(404);
    const bad = await app.request('/v1/approvals/nope/complete', jsonPost({ decision: 'maybe' }));
    expect(bad.status).toBe(400);
  });
});
