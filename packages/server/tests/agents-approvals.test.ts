import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentRun, runUntil, serveAgents, settled, startAgentRun, TOKEN_A, TOKEN_B } from './agents-helpers.js';
import { refundCount } from './agents-pack.js';
import { cleanupTempDirs, startServer, stopAllServers, terminate } from './harness.js';
import { api } from './http.js';

// Approval gates through the real process: a gated tool suspends the run (`waiting`) with an approval that
// survives a restart; a decision resumes it; a second decision, or another tenant's, is refused.
let ctx: Awaited<ReturnType<typeof serveAgents>>;

type Approval = { approvalId: string; runId: string; toolId: string; status: string; arguments: unknown };

beforeAll(async () => {
  ctx = await serveAgents('agents-approvals');
}, 120_000);

afterAll(async () => {
  await stopAllServers();
  await ctx?.model.close();
  cleanupTempDirs();
}, 60_000);

async function waitingRun(): Promise<{ run: AgentRun; approval: Approval }> {
  const started = await startAgentRun(ctx.server.url, 'acme.gated-agent', 'refund 5 please', { wait: true });
  // `wait` answers once the run is finished or, as here, waiting for a decision.
  expect(started).toMatchObject({ status: 201, body: { status: 'waiting' } });
  const list = await api(ctx.server.url, TOKEN_A, 'GET', `/v1/approvals?status=pending&runId=${started.body.runId}`);
  const approvals = (list.body as { data: Approval[] }).data;
  expect(approvals).toHaveLength(1);
  return { run: started.body, approval: approvals[0] as Approval };
}

describe('approval gates (dist/main.js)', () => {
  it('suspends at the gated tool, survives a restart, resumes on approval; twice or another tenant is refused', async () => {
    const { run, approval } = await waitingRun();
    expect(approval).toMatchObject({ toolId: 'acme.count-refund', status: 'pending', arguments: { amount: 5 } });
    expect(refundCount(ctx.log, run.runId)).toBe(0);

    await terminate(ctx.server);
    ctx.server = await startServer(ctx.config, { env: { AGENTS_MODEL_KEY: 'sk-scripted-agents-key' } });
    const path = `/v1/approvals/${approval.approvalId}`;
    expect((await api(ctx.server.url, TOKEN_A, 'GET', path)).body).toMatchObject({ status: 'pending' });
    expect((await api(ctx.server.url, TOKEN_A, 'GET', `/v1/runs/${run.runId}`)).body).toMatchObject({
      status: 'waiting',
    });

    const foreign = await api(ctx.server.url, TOKEN_B, 'POST', `${path}/complete`, { decision: 'approve' });
    expect(foreign).toMatchObject({ status: 404, body: { error: { code: 'approval-not-found' } } });
    const decided = await api(ctx.server.url, TOKEN_A, 'POST', `${path}/complete`, {
      decision: 'approve',
      reason: 'ok',
    });
    expect(decided).toMatchObject({
      status: 200,
      body: { status: 'approved', decision: { decision: 'approve', reason: 'ok' } },
    });
    const again = await api(ctx.server.url, TOKEN_A, 'POST', `${path}/complete`, { decision: 'deny' });
    expect(again).toMatchObject({ status: 409, body: { error: { code: 'approval-already-completed' } } });

    const done = await runUntil(ctx.server.url, run.runId, settled);
    expect(done).toMatchObject({ status: 'completed', output: { answer: 'Refunded.' } });
    expect(refundCount(ctx.log, run.runId)).toBe(1);
    const stream = (await api(ctx.server.url, TOKEN_A, 'GET', `/v1/runs/${run.runId}/stream`)).body as string;
    const kinds = [...stream.matchAll(/^event: (.+)$/gm)].map((m) => m[1]);
    expect(kinds).toEqual([
      'run.started',
      'model.call',
      'approval.requested',
      'run.waiting',
      'run.resumed',
      'approval.completed',
      'tool.call',
      'tool.result',
      'model.call',
      'run.completed',
    ]);
  });

  it('reports a denied call to the model as denied and never runs it', async () => {
    const { run, approval } = await waitingRun();
    const path = `/v1/approvals/${approval.approvalId}/complete`;
    const denied = await api(ctx.server.url, TOKEN_A, 'POST', path, { decision: 'deny', reason: 'too much' });
    expect(denied).toMatchObject({ status: 200, body: { status: 'denied' } });
    const done = await runUntil(ctx.server.url, run.runId, settled);
    expect(done.status).toBe('completed');
    expect(refundCount(ctx.log, run.runId)).toBe(0);
    const told = ctx.model.requests.some((r) =>
      r.body.messages.some(
        (m) => m.role === 'tool' && String(m.content).includes('tool-denied') && String(m.content).includes('too much'),
      ),
    );
    expect(told).toBe(true);
  });

  it('refuses a bad decision body and an unknown approval', async () => {
    const bad = await api(ctx.server.url, TOKEN_A, 'POST', '/v1/approvals/nope/complete', { decision: 'maybe' });
    expect(bad.status).toBe(400);
    const missing = await api(ctx.server.url, TOKEN_A, 'GET', '/v1/approvals/nope');
    expect(missing).toMatchObject({ status: 404, body: { error: { code: 'approval-not-found' } } });
  });
});
