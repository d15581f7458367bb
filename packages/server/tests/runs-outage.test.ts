import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startPostgres, type TestPostgres } from '@kindgi/test-services/postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyCountPack, countLog } from './count-pack.js';
import {
  cleanupTempDirs,
  makeTempDir,
  type RunningServer,
  startServer,
  stderrOf,
  stopAllServers,
  writeConfig,
} from './harness.js';
import { api, readRunStream } from './http.js';

// A server on PostgreSQL executes runs whose pack answers while the database is stopped, for longer than
// the runs' lease: once the database is back, the held outcomes land. Each run ends `completed` with its
// output (never `run-interrupted`), and the pack executed each one once.
const TOKEN = 'tok-runs-outage-000001';
const LEASE_MS = 2_000;
const RUNS = 6;

type Run = { runId: string; status: string; output?: unknown; error?: { code: string } };

/** Polls `check` every 50 ms until it holds; fails naming `what` after `limitMs`. */
async function until(check: () => boolean, what: string, limitMs = 60_000): Promise<void> {
  const end = Date.now() + limitMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('a PostgreSQL outage while the pack answers runs', () => {
  let pg: TestPostgres;
  let server: RunningServer;
  let scratch: string;

  beforeAll(async () => {
    pg = await startPostgres();
    const root = makeTempDir('runs-outage');
    const pack = copyCountPack(root);
    scratch = pack.scratch;
    const config = writeConfig(root, join(root, 'data'), {
      tokens: [{ token: TOKEN, tenantId: 'tenant-outage' }],
      packs: [{ dir: pack.packDir, env: { ACME_API_BASE: 'https://cases.acme.invalid' } }],
      database: { url: await pg.createDatabase('outage') },
      runs: { leaseMs: LEASE_MS, pollMs: 200 },
      drainMs: 2_000,
      // With metrics on, the run store is wrapped for telemetry: the wrapper must pass the sweep's
      // "runs still executing here" on, or an outage would fail them.
      metrics: { enabled: true },
    });
    server = await startServer(config);
  }, 180_000);

  afterAll(async () => {
    await stopAllServers();
    await pg?.stop();
    cleanupTempDirs();
  }, 120_000);

  it('records the held outcomes once the database is back: completed with outputs, each executed once', async () => {
    const log = join(scratch, 'count.log');
    const release = join(scratch, 'release');
    const runIds: string[] = [];
    for (let i = 0; i < RUNS; i++) {
      const input = { log, release, payload: `payload-${i}` };
      const started = await api(server.url, TOKEN, 'POST', '/v1/runs', { toolId: 'acme.count-run', input });
      expect(started.status, JSON.stringify(started.body)).toBe(202);
      runIds.push((started.body as Run).runId);
    }
    await until(() => countLog(log).started.size === RUNS, 'every run to start');

    await pg.halt();
    writeFileSync(release, '');
    await until(() => countLog(log).done.size === RUNS, 'the pack to answer every run');
    // The outage outlasts the lease: by the database's clock every run's lease ran out meanwhile.
    await server.waitFor((record) => /recording run outcomes is failing/.test(record.message), 'the failing record');
    await new Promise((resolve) => setTimeout(resolve, 2 * LEASE_MS));
    await pg.start();

    for (const [i, runId] of runIds.entries()) {
      const events = await readRunStream(server.url, TOKEN, runId);
      expect(
        events.map((event) => event.event),
        stderrOf(server).slice(-4000),
      ).toEqual(['run.started', 'run.completed']);
      const run = (await api(server.url, TOKEN, 'GET', `/v1/runs/${runId}`)).body as Run;
      expect(run).toMatchObject({ status: 'completed', output: { runId, payload: `payload-${i}` } });
    }
    const { started, done } = countLog(log);
    expect(runIds.map((runId) => [started.get(runId), done.get(runId)])).toEqual(runIds.map(() => [1, 1]));
    // One line when recording starts failing and one when the held outcomes landed, not one per attempt.
    const lines = (pattern: RegExp) => server.records.filter((record) => pattern.test(record.message)).length;
    await server.waitFor((record) => /recorded the held outcomes/.test(record.message), 'the landed record');
    expect(lines(/recording run outcomes is failing/)).toBe(1);
    expect(lines(/recorded the held outcomes/)).toBe(1);
    expect(lines(/runs interrupted/)).toBe(0);
  }, 180_000);
});
