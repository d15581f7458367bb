import { join } from 'node:path';
import { startPostgres, type TestPostgres } from '@kindgi/test-services/postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cleanupTempDirs,
  type LogRecord,
  makeTempDir,
  type RunningServer,
  reapPackServices,
  spawnServer,
  startServer,
  stderrOf,
  stopAllServers,
  writeConfig,
} from './harness.js';
import { api, readRunStream } from './http.js';

// Two kindgi-server processes (dist/main.js) on one real PostgreSQL: shared idempotency, runs claimed once,
// streams on any server, a dead executor's runs interrupted after its lease, and a database outage survived.
const TOKEN = 'tok-postgres-scale-0001';
const LEASE_MS = 3_000;

type Run = { runId: string; status: string; output?: unknown; error?: { code: string; message: string } };

/** The step number of a slow-report `report step done` record for this run, else undefined. */
function stepOf(record: LogRecord, runId: string): number | undefined {
  const inner = record.record as Record<string, unknown> | undefined;
  if (record.event !== 'pack-log' || inner?.runId !== runId || inner.message !== 'report step done') return undefined;
  return inner.step as number;
}

describe('two servers on one PostgreSQL', () => {
  let pg: TestPostgres;
  let databaseUrl: string;
  let a: RunningServer;
  let b: RunningServer;

  const start = async (label: string): Promise<RunningServer> => {
    const dir = makeTempDir(`pg-${label}`);
    const config = writeConfig(dir, join(dir, 'data'), {
      tokens: [{ token: TOKEN, tenantId: 'tenant-pg' }],
      database: { url: databaseUrl },
      runs: { leaseMs: LEASE_MS, pollMs: 200 },
      drainMs: 2_000,
    });
    return startServer(config);
  };

  beforeAll(async () => {
    pg = await startPostgres();
    databaseUrl = await pg.createDatabase('scale');
    // Started together: both migrate under the advisory lock; one applies, the other finds nothing to do.
    [a, b] = await Promise.all([start('a'), start('b')]);
  }, 180_000);

  afterAll(async () => {
    await stopAllServers();
    await pg?.stop();
    cleanupTempDirs();
  }, 120_000);

  it('20 concurrent requests with one Idempotency-Key over both servers execute once', async () => {
    const body = { toolId: 'acme.lookup-case', input: { caseId: 'CASE-1001' } };
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        api(i % 2 === 0 ? a.url : b.url, TOKEN, 'POST', '/v1/runs', body, { 'idempotency-key': 'scale-key-1' }),
      ),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(
      statuses.every((status) => status === 202 || status === 409),
      JSON.stringify(statuses),
    ).toBe(true);
    const runIds = new Set(answers.filter((x) => x.status === 202).map((x) => (x.body as Run).runId));
    expect(runIds.size).toBe(1);
    const replayed = answers.filter((x) => x.headers.get('x-idempotent-replay') === 'true').length;
    expect(answers.filter((x) => x.status === 202).length - replayed).toBe(1);
    for (const answer of answers.filter((x) => x.status === 409)) {
      expect((answer.body as { error: { code: string } }).error.code).toBe('idempotency-key-in-flight');
      expect(answer.headers.get('retry-after')).toBe('5');
    }
    const listed = await api(b.url, TOKEN, 'GET', '/v1/runs?toolId=acme.lookup-case&limit=100');
    expect((listed.body as { data: Run[] }).data.map((run) => run.runId)).toEqual([...runIds]);
  });

  it('a run started on A streams live from B to run.completed', async () => {
    const started = await api(a.url, TOKEN, 'POST', '/v1/runs', {
      toolId: 'acme.slow-report',
      input: { steps: 3, stepMs: 300 },
    });
    expect(started.status).toBe(202);
    const { runId } = started.body as Run;
    const events = await readRunStream(b.url, TOKEN, runId);
    expect(events.map((event) => event.event)).toEqual(['run.started', 'run.completed']);
    expect(JSON.parse(events[1]?.data ?? '{}')).toMatchObject({ status: 'completed', output: { stepsCompleted: 3 } });
    const resumed = await fetch(`${a.url}/v1/runs/${runId}/stream`, {
      headers: { authorization: `Bearer ${TOKEN}`, 'last-event-id': `${runId}:2` },
    });
    // Resumed after the terminal event: the stream ends at once, with nothing in it.
    expect(resumed.status).toBe(200);
    expect(await resumed.text()).not.toContain('event:');
  });

  it('a cancel on B stops the run wherever it executes', async () => {
    const started = await api(a.url, TOKEN, 'POST', '/v1/runs', {
      toolId: 'acme.slow-report',
      input: { steps: 50, stepMs: 200 },
    });
    const { runId } = started.body as Run;
    await Promise.race([a, b].map((server) => server.waitFor((r) => stepOf(r, runId) === 1, 'the first step')));
    const cancelled = await api(b.url, TOKEN, 'POST', `/v1/runs/${runId}/cancel`);
    expect(cancelled.status).toBe(200);
    const events = await readRunStream(a.url, TOKEN, runId);
    expect(events.map((event) => event.event)).toEqual(['run.started', 'run.cancelled']);
  });

  it('a PostgreSQL outage fails requests with 503, none hangs, and service resumes by itself', async () => {
    await pg.halt();
    const during = await Promise.all([
      api(a.url, TOKEN, 'GET', '/v1/runs', undefined),
      api(b.url, TOKEN, 'POST', '/v1/runs', { toolId: 'acme.lookup-case', input: { caseId: 'CASE-1001' } }),
      api(
        a.url,
        TOKEN,
        'POST',
        '/v1/runs',
        { toolId: 'acme.lookup-case', input: { caseId: 'CASE-1001' } },
        {
          'idempotency-key': 'outage-key',
        },
      ),
    ]).catch(async (cause) => {
      await new Promise((r) => setTimeout(r, 500));
      throw new Error(`${String(cause)}\nA: ${stderrOf(a).slice(-3000)}\nB: ${stderrOf(b).slice(-3000)}`);
    });
    for (const answer of during) {
      expect(answer.status, JSON.stringify(answer.body)).toBe(503);
      expect((answer.body as { error: { code: string } }).error.code).toBe('storage-unavailable');
    }
    // An orchestrator sees the outage too: the servers report not ready while PostgreSQL is down.
    expect((await fetch(new URL('/readyz', a.url))).status).toBe(503);
    await pg.start();
    for (const server of [a, b]) expect(server.child.exitCode, stderrOf(server).slice(-4000)).toBeNull();
    let status = 0;
    for (let attempt = 0; attempt < 60 && status !== 200; attempt++) {
      status = (await api(b.url, TOKEN, 'GET', '/v1/runs')).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(status).toBe(200);
    expect((await fetch(new URL('/readyz', a.url))).status).toBe(200);
    const run = await api(a.url, TOKEN, 'POST', '/v1/runs', {
      toolId: 'acme.lookup-case',
      input: { caseId: 'CASE-1001' },
      options: { wait: true },
    });
    expect(run.status).toBe(201);
    expect((run.body as Run).status).toBe('completed');
  }, 120_000);

  it('kill -9 of the executing server: run-interrupted after the lease, seen on the other, never run twice', async () => {
    const started = await api(a.url, TOKEN, 'POST', '/v1/runs', {
      toolId: 'acme.slow-report',
      input: { steps: 50, stepMs: 200 },
    });
    const { runId } = started.body as Run;
    const first = await Promise.race(
      [a, b].map((server) => server.waitFor((r) => stepOf(r, runId) === 1, 'the first step').then(() => server)),
    );
    const other = first === a ? b : a;
    first.child.kill('SIGKILL');
    await first.exited;
    reapPackServices(first);
    const events = await readRunStream(other.url, TOKEN, runId);
    expect(events.map((event) => event.event)).toEqual(['run.started', 'run.failed']);
    const failed = JSON.parse(events[1]?.data ?? '{}') as Run;
    expect(failed.error).toMatchObject({ code: 'run-interrupted' });
    // Only the killed server ever ran it: the survivor's pack service logged no step of this run.
    expect(
      other.records.some((record) => stepOf(record, runId) !== undefined),
      stderrOf(other),
    ).toBe(false);
    const later = await api(other.url, TOKEN, 'POST', '/v1/runs', {
      toolId: 'acme.lookup-case',
      input: { caseId: 'CASE-1001' },
      options: { wait: true },
    });
    expect((later.body as Run).status).toBe('completed');
  }, 120_000);
});

describe('a wrong database URL at start', () => {
  it('exits 1 naming the problem, with the password masked', async () => {
    const dir = makeTempDir('pg-wrong');
    const secret = 'not-the-password-4711';
    const config = writeConfig(dir, join(dir, 'data'), {
      tokens: [{ token: TOKEN, tenantId: 'tenant-pg' }],
      // Nothing listens on port 1 of 127.0.0.1.
      database: { url: `postgres://kindgi:${secret}@127.0.0.1:1/kindgi` },
    });
    const server = spawnServer(['--config', config]);
    const exit = await server.exited;
    expect(exit.code).toBe(1);
    const log = stderrOf(server);
    expect(log).toContain('postgres://kindgi:***@127.0.0.1:1/kindgi');
    expect(log).not.toContain(secret);
    cleanupTempDirs();
  }, 60_000);
});
