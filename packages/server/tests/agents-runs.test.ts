import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AgentRun,
  MODEL_KEY,
  runUntil,
  serveAgents,
  settled,
  startAgentRun,
  TOKEN_A,
  TOKEN_B,
} from './agents-helpers.js';
import { refundCount } from './agents-pack.js';
import { cleanupTempDirs, stopAllServers } from './harness.js';
import { api, readRunStream } from './http.js';

// Agent runs through the real process (embedded store) against a scripted OpenAI-compatible model of the
// suite's own: the turn's events in the journal and on SSE, dry runs, and each fault the model can cause.
let ctx: Awaited<ReturnType<typeof serveAgents>>;

beforeAll(async () => {
  ctx = await serveAgents('agents-runs');
}, 120_000);

afterAll(async () => {
  await stopAllServers();
  await ctx?.model.close();
  cleanupTempDirs();
}, 60_000);

const finished = async (agentId: string, message: string, options: Record<string, unknown> = {}) => {
  const started = await startAgentRun(ctx.server.url, agentId, message, options);
  expect(started.status).toBe(202);
  return runUntil(ctx.server.url, started.body.runId, settled);
};

describe('agents (dist/main.js)', () => {
  it('lists the registry’s agents and describes one; another id is 404 agent-not-found', async () => {
    const list = (await api(ctx.server.url, TOKEN_A, 'GET', '/v1/agents')).body as { data: { id: string }[] };
    expect(list.data.map((agent) => agent.id)).toEqual([
      'acme.exploding-agent',
      'acme.gated-agent',
      'acme.refund-agent',
      'acme.support-agent',
    ]);
    const one = await api(ctx.server.url, TOKEN_A, 'GET', '/v1/agents/acme.support-agent');
    expect(one.body).toMatchObject({
      id: 'acme.support-agent',
      packId: 'acme',
      guardrails: ['acme.citations-checked'],
    });
    const missing = await api(ctx.server.url, TOKEN_A, 'GET', '/v1/agents/acme.nobody');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ error: { code: 'agent-not-found' } });
  });

  it('runs the support agent to an answer: parallel tool calls, its guardrail, usage, events on SSE', async () => {
    const started = await startAgentRun(ctx.server.url, 'acme.support-agent', 'support Where is CASE-1001?');
    expect(started).toMatchObject({ status: 202, body: { agentId: 'acme.support-agent', status: 'queued' } });
    const events = await readRunStream(ctx.server.url, TOKEN_A, started.body.runId);
    expect(events.map((event) => event.event)).toEqual([
      'run.started',
      'model.call',
      'tool.call',
      'tool.call',
      'tool.result',
      'tool.result',
      'model.call',
      'guardrail.result',
      'run.completed',
    ]);
    const guard = JSON.parse(events[7]?.data ?? '{}');
    expect(guard).toMatchObject({ guardrailId: 'acme.citations-checked', passed: true });
    const run = (await api(ctx.server.url, TOKEN_A, 'GET', `/v1/runs/${started.body.runId}`)).body as AgentRun;
    expect(run).toMatchObject({
      status: 'completed',
      violations: [],
      output: { answer: 'CASE-1001 is open [Refund policy, p. 3].', usage: { totalTokens: 36 } },
    });
    // The model got the key from the environment, the tools as function names, and the tool results.
    const second = ctx.model.requests.find((r) =>
      r.body.messages.some((m) => m.role === 'tool' && String(m.content).includes('[Refund policy, p. 3]')),
    );
    expect(second?.authorization).toBe(`Bearer ${MODEL_KEY}`);
    expect(second?.body.tools?.map((tool) => tool.function.name).sort()).toEqual([
      'acme_case-link',
      'acme_format-citation',
      'acme_lookup-case',
      'acme_slow-report',
    ]);
  });

  it('stops a dry run before the first tool that is not read-only, naming what it would have called', async () => {
    const run = await finished('acme.support-agent', 'support dry', { dryRun: true });
    expect(run.status).toBe('completed');
    expect(run.output).toMatchObject({
      dryRun: {
        stoppedAt: { toolId: 'acme.format-citation', reason: 'mutating', arguments: { source: 'Refund policy' } },
        wouldCall: [{ toolId: 'acme.lookup-case' }, { toolId: 'acme.format-citation' }],
      },
    });
    const events = (await api(ctx.server.url, TOKEN_A, 'GET', `/v1/runs/${run.runId}/stream`)).body as string;
    expect(events).toContain('event: dry-run.stopped');
    expect(events).not.toContain('event: tool.call');
  });

  it('shows the model invalid arguments when the agent allows it, and the turn goes on', async () => {
    const run = await finished('acme.refund-agent', 'bad-args please');
    expect(run).toMatchObject({ status: 'completed', output: { answer: 'Could not refund.' } });
    const stream = (await api(ctx.server.url, TOKEN_A, 'GET', `/v1/runs/${run.runId}/stream`)).body as string;
    expect(stream).toContain('"code":"input-validation-failed"');
    expect(refundCount(ctx.log, run.runId)).toBe(0);
  });

  it('fails on an unknown tool, the step limit, garbage, a hung stream; retries a 429 after Retry-After', async () => {
    const [unknown, loop, garbage, hang, limited] = await Promise.all([
      finished('acme.refund-agent', 'unknown-tool now'),
      finished('acme.refund-agent', 'loop forever'),
      finished('acme.refund-agent', 'garbage in'),
      finished('acme.refund-agent', 'hang on'),
      finished('acme.refund-agent', 'rate-limited please'),
    ]);
    expect(unknown).toMatchObject({
      status: 'failed',
      error: { code: 'tool-call-failed', details: { code: 'tool-not-found' } },
    });
    expect(loop).toMatchObject({ status: 'failed', error: { code: 'agent-step-limit', details: { maxSteps: 3 } } });
    expect(garbage).toMatchObject({ status: 'failed', error: { code: 'model-call-failed' } });
    expect(hang).toMatchObject({
      status: 'failed',
      error: { code: 'model-call-failed', details: { modelError: 'model-timeout' } },
    });
    expect(limited).toMatchObject({ status: 'completed', output: { answer: 'After a wait.' } });
  });

  it('reports a guardrail check that throws as an evaluation error, not a violation', async () => {
    const run = await finished('acme.exploding-agent', 'plain question');
    expect(run).toMatchObject({
      status: 'completed',
      violations: [],
      output: { answer: 'Nothing to check.', guardrailErrors: [{ guardrailId: 'acme.exploding-check' }] },
    });
  });

  it('refuses bad agent runs with the error table’s codes', async () => {
    const post = (body: unknown, token = TOKEN_A) => api(ctx.server.url, token, 'POST', '/v1/runs', body);
    expect((await post({ agentId: 'acme.nobody', input: { message: 'x' } })).body).toMatchObject({
      error: { code: 'agent-not-found' },
    });
    expect((await post({ agentId: 'acme.support-agent', input: { text: 'x' } })).status).toBe(400);
    expect((await post({ agentId: 'acme.support-agent', toolId: 'acme.lookup-case', input: {} })).status).toBe(400);
    expect((await post({ toolId: 'acme.lookup-case', input: {}, options: { dryRun: true } })).body).toMatchObject({
      error: { code: 'bad-input' },
    });
    const other = await startAgentRun(ctx.server.url, 'acme.support-agent', 'plain', {}, TOKEN_A);
    expect((await api(ctx.server.url, TOKEN_B, 'GET', `/v1/runs/${other.body.runId}`)).status).toBe(404);
  });
});
