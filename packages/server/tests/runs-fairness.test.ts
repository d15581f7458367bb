import { join } from 'node:path';
import { startPostgres, type TestPostgres } from '@kindgi/test-services/postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cleanupTempDirs,
  makeTempDir,
  type RunningServer,
  startServer,
  stopAllServers,
  terminate,
  writeConfig,
} from './harness.js';
import { api, readRunStream } from './http.js';

// One tenant's flood does not starve another: tenant A queues FLOOD runs of a slow-ish tool, then tenant B
// queues one; B's run starts before most of A's, on the embedded store and on PostgreSQL. The wait is
// printed for the record (figures go to the closing note), never asserted.
const A = { token: 'tok-fair-tenant-a-0001', tenantId: 'tenant-a' };
const B = { token: 'tok-fair-tenant-b-0001', tenantId: 'tenant-b' };
const FLOOD = 240;
const CONCURRENCY = 4;
const slow = { toolId: 'acme.slow-report', input: { steps: 1, stepMs: 50 } };

type Run = { runId: string; status: string; createdAt: string; startedAt?: string };

let pg: TestPostgres | undefined;

afterAll(async () => {
  await stopAllServers();
  await pg?.stop();
  cleanupTempDirs();
}, 120_000);

async function serve(kind: 'embedded' | 'postgres'): Promise<RunningServer> {
  const root = makeTempDir(`fair-${kind}`);
  let database = {};
  if (kind === 'postgres') {
    pg ??= await startPostgres();
    database = { database: { url: await pg.createDatabase('fairness') } };
  }
  const config = writeConfig(root, join(root, 'data'), {
    tokens: [A, B],
    runs: { concurrencyPerPack: CONCURRENCY, pollMs: 200 },
    drainMs: 1_000,
    ...database,
  });
  return startServer(config);
}

/** Every run of the tenant with `status`, following the listing's cursors. */
async function listAll(url: string, token: string, status: string): Promise<Run[]> {
  const runs: Run[] = [];
  let cursor: string | undefined;
  do {
    const query = `status=${status}&limit=100${cursor === undefined ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;
    const page = (await api(url, token, 'GET', `/v1/runs?${query}`)).body as { data: Run[]; nextCursor?: string };
    runs.push(...page.data);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return runs;
}

describe.each(['embedded', 'postgres'] as const)('tenant fairness of the run queue (%s)', (kind) => {
  let server: RunningServer;

  beforeAll(async () => {
    server = await serve(kind);
  }, 180_000);

  it(`starts tenant B's one run before most of tenant A's ${FLOOD} queued runs`, async () => {
    const flood = await Promise.all(
      Array.from({ length: FLOOD }, () => api(server.url, A.token, 'POST', '/v1/runs', slow)),
    );
    expect(flood.map((answer) => answer.status)).toEqual(Array(FLOOD).fill(202));
    const started = await api(server.url, B.token, 'POST', '/v1/runs', slow);
    expect(started.status).toBe(202);
    const { runId } = started.body as Run;
    const events = await readRunStream(server.url, B.token, runId);
    expect(events.map((event) => event.event)).toEqual(['run.started', 'run.completed']);
    const stillQueued = (await listAll(server.url, A.token, 'queued')).length;
    const run = (await api(server.url, B.token, 'GET', `/v1/runs/${runId}`)).body as Run;
    const waitedMs = Date.parse(run.startedAt ?? '') - Date.parse(run.createdAt);
    console.log(`[${kind}] tenant B waited ${waitedMs} ms; ${stillQueued} of A's ${FLOOD} runs were still queued`);
    // Fair: B's run went ahead of the bulk of A's queue rather than after all of it.
    expect(stillQueued).toBeGreaterThan(FLOOD / 2);
    await terminate(server);
  }, 180_000);
});
