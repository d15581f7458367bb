import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  cleanupTempDirs,
  EXAMPLE_PACK_DIR,
  makeTempDir,
  type RunningServer,
  startServer,
  stopAllServers,
  terminate,
  writeConfig,
} from './harness.js';
import { api, readRunStream } from './http.js';

// Runs through the real process on the embedded store: queued per pack, retried on the pack's 503, refused
// when the queue is full, kept across a restart, and failures stored in one shape.
const TOKEN = 'tok-runs-queue-000001';

type Run = { runId: string; status: string; error?: Record<string, unknown>; outputSize?: number; output?: unknown };

async function serve(
  dir: string,
  runs: Record<string, number>,
  packEnv: Record<string, string> = {},
): Promise<RunningServer> {
  const config = writeConfig(dir, join(dir, 'data'), {
    tokens: [{ token: TOKEN, tenantId: 'tenant-q' }],
    packs: [{ dir: EXAMPLE_PACK_DIR, env: { ACME_API_BASE: 'https://cases.acme.invalid', ...packEnv } }],
    runs: { pollMs: 200, ...runs },
    drainMs: 2_000,
  });
  return startServer(config);
}

const slow = (stepMs: number, steps = 1) => ({ toolId: 'acme.slow-report', input: { steps, stepMs } });

afterAll(async () => {
  await stopAllServers();
  cleanupTempDirs();
}, 60_000);

describe('run execution (dist/main.js, embedded store)', () => {
  it('runs every accepted run when the pack is at its cap: 503s are retried, none is dropped', async () => {
    // The pack takes 4 calls at once; this server would send 12, so the pack refuses some with 503.
    const server = await serve(
      makeTempDir('runs-cap'),
      { concurrencyPerPack: 12 },
      {
        KINDGI_PACK_SERVICE_MAX_CONCURRENCY: '4',
      },
    );
    const answers = await Promise.all(
      Array.from({ length: 40 }, () => api(server.url, TOKEN, 'POST', '/v1/runs', slow(100))),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(40).fill(202));
    const ends = await Promise.all(
      answers.map(async (answer) => (await readRunStream(server.url, TOKEN, (answer.body as Run).runId)).at(-1)),
    );
    expect(ends.map((event) => event?.event)).toEqual(Array(40).fill('run.completed'));
    await terminate(server);
  }, 180_000);

  it('answers 503 run-queue-full with Retry-After when the pack queue is full', async () => {
    const server = await serve(makeTempDir('runs-full'), { concurrencyPerPack: 1, maxQueuedPerPack: 3 });
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => api(server.url, TOKEN, 'POST', '/v1/runs', slow(5_000))),
    );
    const refused = answers.filter((answer) => answer.status === 503);
    const accepted = answers.filter((answer) => answer.status === 202);
    expect(refused.length + accepted.length).toBe(12);
    // One running and three waiting is all one server with a full queue can hold of twelve 5 s runs.
    expect(accepted.length).toBeLessThanOrEqual(4);
    for (const answer of refused) {
      expect((answer.body as { error: { code: string } }).error.code).toBe('run-queue-full');
      expect(answer.headers.get('retry-after')).toBe('5');
    }
    for (const answer of accepted) {
      const cancel = await api(server.url, TOKEN, 'POST', `/v1/runs/${(answer.body as Run).runId}/cancel`);
      expect(cancel.status).toBe(200);
    }
    await terminate(server);
  }, 120_000);

  it('keeps queued runs across a restart and runs them after it', async () => {
    const dir = makeTempDir('runs-restart');
    const idle = await serve(dir, { concurrencyPerPack: 0 });
    const queued = await Promise.all([1, 2, 3].map(() => api(idle.url, TOKEN, 'POST', '/v1/runs', slow(10))));
    expect(queued.map((answer) => (answer.body as Run).status)).toEqual(['queued', 'queued', 'queued']);
    expect((await terminate(idle)).code).toBe(0);
    const working = await serve(dir, {});
    for (const answer of queued) {
      const events = await readRunStream(working.url, TOKEN, (answer.body as Run).runId);
      expect(events.map((event) => event.event)).toEqual(['run.started', 'run.completed']);
    }
    await terminate(working);
  }, 120_000);

  it('stores a deadline as {code, message, details}, lists outputSize, and ends a stream resumed at its end', async () => {
    const server = await serve(makeTempDir('runs-shape'), {});
    const late = await api(server.url, TOKEN, 'POST', '/v1/runs', {
      ...slow(200, 50),
      options: { deadlineMs: 300, wait: true },
    });
    const error = (late.body as Run).error ?? {};
    expect(error).toMatchObject({ code: 'deadline-exceeded', message: expect.any(String) });
    expect(Object.keys(error).sort()).toEqual(expect.arrayContaining(['code', 'message']));
    expect(error).not.toHaveProperty('v');
    expect(error).not.toHaveProperty('kind');

    const done = await api(server.url, TOKEN, 'POST', '/v1/runs', { ...slow(1), options: { wait: true } });
    const { runId } = done.body as Run;
    const listed = (await api(server.url, TOKEN, 'GET', '/v1/runs?status=completed')).body as { data: Run[] };
    const row = listed.data.find((run) => run.runId === runId);
    expect(row).toMatchObject({ outputSize: JSON.stringify({ stepsCompleted: 1 }).length });
    expect(row).not.toHaveProperty('output');
    expect((await api(server.url, TOKEN, 'GET', `/v1/runs/${runId}`)).body).toMatchObject({
      output: { stepsCompleted: 1 },
    });

    const resumed = await fetch(`${server.url}/v1/runs/${runId}/stream`, {
      headers: { authorization: `Bearer ${TOKEN}`, 'last-event-id': `${runId}:2` },
    });
    expect(resumed.status).toBe(200);
    expect(await resumed.text()).not.toContain('event:');
    await terminate(server);
  }, 120_000);
});
