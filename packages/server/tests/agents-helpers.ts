import { join } from 'node:path';
import { type ScriptedModel, startScriptedModel } from '@kindgi/test-services/model-server';
import { call, copyAgentPack, type Scenario, scenarioScript } from './agents-pack.js';
import { makeTempDir, type RunningServer, startServer, writeConfig } from './harness.js';
import { api } from './http.js';

export const TOKEN_A = 'tok-agents-tenant-a-01';
export const TOKEN_B = 'tok-agents-tenant-b-01';
export const MODEL_KEY = 'sk-scripted-agents-key';

/** An agent run as the API answers it. */
export type AgentRun = {
  runId: string;
  status: string;
  agentId?: string;
  output?: Record<string, unknown>;
  error?: { code: string; message: string; details?: Record<string, unknown> };
  violations?: unknown[];
};

/** The scenarios every agents test shares, picked by the first word of the run's message. */
export function sharedScenarios(log: string, release: string): Record<string, Scenario> {
  let limited = 0;
  return {
    // The support agent's whole turn: look the case up and format a citation (in parallel), then answer.
    support: (step) =>
      step === 0
        ? {
            kind: 'tools',
            calls: [
              call('acme.lookup-case', { caseId: 'CASE-1001' }, 'call_lookup'),
              call('acme.format-citation', { source: 'Refund policy', page: 3 }, 'call_cite'),
            ],
          }
        : { kind: 'text', text: 'CASE-1001 is open [Refund policy, p. 3].' },
    refund: (step) =>
      step === 0
        ? { kind: 'tools', calls: [call('acme.count-refund', { log, amount: 5 })] }
        : { kind: 'text', text: 'Refunded.' },
    // The refund holds until the release file exists: a test kills something meanwhile.
    'refund-hold': (step) =>
      step === 0
        ? { kind: 'tools', calls: [call('acme.count-refund', { log, amount: 7, release })] }
        : { kind: 'text', text: 'Refunded after the hold.' },
    'bad-args': (step) =>
      step === 0
        ? { kind: 'tools', calls: [call('acme.count-refund', '{"log": ')] }
        : { kind: 'text', text: 'Could not refund.' },
    'unknown-tool': () => ({ kind: 'tools', calls: [call('acme.delete-everything', {})] }),
    loop: () => ({ kind: 'tools', calls: [call('acme.lookup-case', { caseId: 'CASE-1001' })] }),
    garbage: () => ({ kind: 'garbage' }),
    hang: () => ({ kind: 'hang' }),
    'rate-limited': () => {
      limited += 1;
      return limited === 1 ? { kind: 'status', status: 429, retryAfter: '1' } : { kind: 'text', text: 'After a wait.' };
    },
    plain: () => ({ kind: 'text', text: 'Nothing to check.' }),
  };
}

/** A scripted model on the shared scenarios, with the log and release file of `acme.count-refund`. */
export async function startAgentsModel(
  scratch: string,
): Promise<{ model: ScriptedModel; log: string; release: string }> {
  const log = join(scratch, 'refunds.log');
  const release = join(scratch, 'release');
  const model = await startScriptedModel(scenarioScript(sharedScenarios(log, release)));
  return { model, log, release };
}

/** The server config of the agents tests: the agent pack, two tenants, `models.default` at the scripted model. */
export function agentsConfig(dir: string, packDir: string, modelUrl: string, extra: Record<string, unknown> = {}) {
  return writeConfig(dir, join(dir, 'data'), {
    tokens: [
      { token: TOKEN_A, tenantId: 'tenant-a' },
      { token: TOKEN_B, tenantId: 'tenant-b' },
    ],
    packs: [{ dir: packDir, env: { ACME_API_BASE: 'https://cases.acme.invalid' } }],
    models: {
      default: {
        provider: 'openai-compatible',
        baseUrl: modelUrl,
        model: 'scripted-1',
        apiKeyEnv: 'AGENTS_MODEL_KEY',
        timeoutMs: 4_000,
      },
    },
    runs: { pollMs: 200, leaseMs: 2_000 },
    drainMs: 2_000,
    ...extra,
  });
}

/** A server on the agent pack, its scripted model and the refund log. */
export async function serveAgents(label: string) {
  const dir = makeTempDir(label);
  const { packDir, scratch } = copyAgentPack(dir);
  const { model, log, release } = await startAgentsModel(scratch);
  const config = agentsConfig(dir, packDir, model.url);
  const server: RunningServer = await startServer(config, { env: { AGENTS_MODEL_KEY: MODEL_KEY } });
  return { dir, packDir, scratch, model, log, release, config, server };
}

/** Starts an agent run and answers its record. */
export async function startAgentRun(
  url: string,
  agentId: string,
  message: string,
  options: Record<string, unknown> = {},
  token = TOKEN_A,
): Promise<{ status: number; body: AgentRun }> {
  const body = { agentId, input: { message }, ...(Object.keys(options).length > 0 ? { options } : {}) };
  const answer = await api(url, token, 'POST', '/v1/runs', body);
  return { status: answer.status, body: answer.body as AgentRun };
}

/** Polls the run until `done` says so (a store change reaches GET at once; the poll is only the wait). */
export async function runUntil(url: string, runId: string, done: (run: AgentRun) => boolean, token = TOKEN_A) {
  for (let i = 0; i < 300; i++) {
    const run = (await api(url, token, 'GET', `/v1/runs/${runId}`)).body as AgentRun;
    if (done(run)) return run;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`run ${runId} never reached the expected state`);
}

export const settled = (run: AgentRun) => ['completed', 'failed', 'cancelled'].includes(run.status);
