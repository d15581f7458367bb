import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODEL_KEY, runUntil, serveAgents, settled, startAgentRun } from './agents-helpers.js';
import { refundCount } from './agents-pack.js';
import { cleanupTempDirs, reapPackServices, startServer, stopAllServers } from './harness.js';

// A turn's mutating tool call runs at most once, whatever dies under it: the pack (the call fails, the run
// with it) or the server (kill -9: the restarted server ends the run `run-interrupted`, never re-runs it).
let ctx: Awaited<ReturnType<typeof serveAgents>>;

beforeAll(async () => {
  ctx = await serveAgents('agents-crash');
}, 120_000);

afterAll(async () => {
  await stopAllServers();
  await ctx?.model.close();
  cleanupTempDirs();
}, 60_000);

async function untilRefundStarted(runId: string): Promise<void> {
  for (let i = 0; i < 300 && refundCount(ctx.log, runId) === 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(refundCount(ctx.log, runId)).toBe(1);
}

describe('agent runs when something dies (dist/main.js)', () => {
  it('fails the run when the pack dies mid-tool-call, having run the tool once', async () => {
    const started = await startAgentRun(ctx.server.url, 'acme.refund-agent', 'refund-hold now');
    await untilRefundStarted(started.body.runId);
    for (const pid of ctx.server.packPids) process.kill(pid, 'SIGKILL');
    const run = await runUntil(ctx.server.url, started.body.runId, settled);
    expect(run).toMatchObject({ status: 'failed', error: { code: 'tool-call-failed' } });
    expect(refundCount(ctx.log, started.body.runId)).toBe(1);
  });

  it('ends a turn whose server was killed as run-interrupted after a restart, never running the tool twice', async () => {
    // The pack was restarted by its supervisor after the test above; wait for the agent to be served again.
    const started = await startAgentRun(ctx.server.url, 'acme.refund-agent', 'refund-hold again');
    expect(started.status).toBe(202);
    await untilRefundStarted(started.body.runId);
    ctx.server.child.kill('SIGKILL');
    await ctx.server.exited;
    reapPackServices(ctx.server);
    ctx.server = await startServer(ctx.config, { env: { AGENTS_MODEL_KEY: MODEL_KEY } });
    const run = await runUntil(ctx.server.url, started.body.runId, settled);
    expect(run).toMatchObject({ status: 'failed', error: { code: 'run-interrupted' } });
    // Released now: nothing may pick the call up again.
    writeFileSync(ctx.release, '');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(refundCount(ctx.log, started.body.runId)).toBe(1);
  });
});
