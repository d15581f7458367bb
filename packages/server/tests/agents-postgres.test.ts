import { join } from 'node:path';
import type { ScriptedModel } from '@kindgi/test-services/model-server';
import { startPostgres, type TestPostgres } from '@kindgi/test-services/postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  agentsConfig,
  MODEL_KEY,
  runUntil,
  settled,
  startAgentRun,
  startAgentsModel,
  TOKEN_A,
} from './agents-helpers.js';
import { copyAgentPack, refundCount } from './agents-pack.js';
import { cleanupTempDirs, makeTempDir, type RunningServer, startServer, stopAllServers } from './harness.js';
import { api } from './http.js';

// Two servers on one PostgreSQL: an approval one server's run asked for is decided on the other, and the
// run resumes (on whichever server claims it) with the tool run once.
describe('agent approvals across two servers on one PostgreSQL', () => {
  let pg: TestPostgres;
  let model: ScriptedModel;
  let log: string;
  let a: RunningServer;
  let b: RunningServer;

  beforeAll(async () => {
    pg = await startPostgres();
    const databaseUrl = await pg.createDatabase('agents');
    const root = makeTempDir('agents-pg');
    const { packDir, scratch } = copyAgentPack(root);
    ({ model, log } = await startAgentsModel(scratch));
    const start = (label: string) =>
      startServer(agentsConfig(join(root, label), packDir, model.url, { database: { url: databaseUrl } }), {
        env: { AGENTS_MODEL_KEY: MODEL_KEY },
      });
    [a, b] = await Promise.all([start('a'), start('b')]);
  }, 180_000);

  afterAll(async () => {
    await stopAllServers();
    await model?.close();
    await pg?.stop();
    cleanupTempDirs();
  }, 120_000);

  it('resumes a run whose approval was created on one server and completed on the other', async () => {
    const started = await startAgentRun(a.url, 'acme.gated-agent', 'refund on two servers', { wait: true });
    expect(started).toMatchObject({ status: 201, body: { status: 'waiting' } });
    const runId = started.body.runId;
    const listed = await api(b.url, TOKEN_A, 'GET', `/v1/approvals?runId=${runId}`);
    const [approval] = (listed.body as { data: { approvalId: string; status: string }[] }).data;
    expect(approval?.status).toBe('pending');
    const decided = await api(b.url, TOKEN_A, 'POST', `/v1/approvals/${approval?.approvalId}/complete`, {
      decision: 'approve',
    });
    expect(decided.status).toBe(200);
    const done = await runUntil(a.url, runId, settled);
    expect(done).toMatchObject({ status: 'completed', output: { answer: 'Refunded.' } });
    expect(refundCount(log, runId)).toBe(1);
    const again = await api(a.url, TOKEN_A, 'POST', `/v1/approvals/${approval?.approvalId}/complete`, {
      decision: 'deny',
    });
    expect(again).toMatchObject({ status: 409, body: { error: { code: 'approval-already-completed' } } });
  });
});
