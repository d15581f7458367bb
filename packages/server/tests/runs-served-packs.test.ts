import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startPostgres, type TestPostgres } from '@kindgi/test-services/postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cleanupTempDirs,
  EXAMPLE_PACK_DIR,
  makeTempDir,
  type RunningServer,
  startServer,
  stopAllServers,
  writeConfig,
} from './harness.js';
import { api, readRunStream } from './http.js';
import { copyExamplePack } from './pack-fixtures.js';

// Two servers with different packs on one PostgreSQL (a rolling deploy adding a pack looks like this): each
// executes only runs of the packs it hosts, so none fails `tool-not-found` on the server without its pack.
const TOKEN = 'tok-served-packs-00001';
const RUNS = 24;

const BETA_CONFIG = `import { defineConfig } from '@kindgi/sdk';

export default defineConfig({ pack: { id: 'beta', version: '1.0.0' } });
`;
const BETA_ECHO = `import { defineTool } from '@kindgi/sdk';

export default defineTool({
  id: 'beta.echo',
  description: 'Answers its input.',
  input: { type: 'object' },
  output: { type: 'object' },
  handler: async (input: Record<string, unknown>) => input,
});
`;

/** A pack `beta` with one tool, `beta.echo` (built on a copy of the example pack for its dependencies). */
function copyBetaPack(root: string): string {
  const dir = copyExamplePack(root);
  for (const part of ['tools', 'guardrails', 'agents', 'flows']) rmSync(join(dir, part), { recursive: true });
  mkdirSync(join(dir, 'tools', 'echo'), { recursive: true });
  writeFileSync(join(dir, 'tools', 'echo', 'index.ts'), BETA_ECHO);
  writeFileSync(join(dir, 'kindgi.config.ts'), BETA_CONFIG);
  return dir;
}

type Run = { runId: string; status: string; error?: { code: string } };

describe('servers hosting different packs on one PostgreSQL', () => {
  let pg: TestPostgres;
  let acme: RunningServer;
  let beta: RunningServer;

  beforeAll(async () => {
    pg = await startPostgres();
    const url = await pg.createDatabase('served');
    const start = (label: string, pack: Record<string, unknown>) => {
      const dir = makeTempDir(`served-${label}`);
      const config = writeConfig(dir, join(dir, 'data'), {
        tokens: [{ token: TOKEN, tenantId: 'tenant-served' }],
        packs: [pack],
        database: { url },
        runs: { pollMs: 100 },
        drainMs: 1_000,
      });
      return startServer(config);
    };
    const betaRoot = makeTempDir('served-beta-pack');
    [acme, beta] = await Promise.all([
      start('acme', { dir: EXAMPLE_PACK_DIR, env: { ACME_API_BASE: 'https://cases.acme.invalid' } }),
      start('beta', { dir: copyBetaPack(betaRoot) }),
    ]);
  }, 180_000);

  afterAll(async () => {
    await stopAllServers();
    await pg?.stop();
    cleanupTempDirs();
  }, 120_000);

  it('each server executes only the runs of its own packs', async () => {
    const started = await Promise.all([
      ...Array.from({ length: RUNS }, (_, i) =>
        api(acme.url, TOKEN, 'POST', '/v1/runs', { toolId: 'acme.slow-report', input: { steps: 1, stepMs: 20 + i } }),
      ),
      ...Array.from({ length: RUNS }, (_, i) =>
        api(beta.url, TOKEN, 'POST', '/v1/runs', { toolId: 'beta.echo', input: { i } }),
      ),
    ]);
    expect(started.map((answer) => answer.status)).toEqual(Array(2 * RUNS).fill(202));
    const ends = await Promise.all(
      started.map(async (answer) => {
        const events = await readRunStream(acme.url, TOKEN, (answer.body as Run).runId);
        return JSON.parse(events.at(-1)?.data ?? '{}') as Run;
      }),
    );
    expect(ends.map((run) => run.error?.code ?? run.status)).toEqual(Array(2 * RUNS).fill('completed'));
  }, 120_000);
});
