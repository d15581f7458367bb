import type { RunStore } from '@kindgi/bindings';
import { createInMemoryRunStore } from '@kindgi/testing';
import { describe, expect, it } from 'vitest';
import { AUTH_A, AUTH_B, deferred, envelope, jsonPost, makeApp } from './helpers.js';

// How runs share a store: a tenant's share of a pack's queue, the packs an executor serves, and outcomes
// held across a run store that cannot record them for a while.
type Run = { runId: string; status: string; output?: unknown; error?: { code: string } };

async function json<T>(res: Response | Promise<Response>): Promise<T> {
  return (await (await res).json()) as T;
}

/** Waits (polling every 10 ms, at most 10 s) until `check` holds. */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1_000; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function recordingLogger() {
  const lines: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
  const log = (level: string) => (message: string, fields?: Record<string, unknown>) =>
    void lines.push(fields === undefined ? { level, message } : { level, message, fields });
  return { lines, logger: { warn: log('warn'), error: log('error') } };
}

/** The store, with its writes (`finish`, `requeue`, `heartbeat`) failing while `down` is set. */
function flakyStore(store: RunStore) {
  const state = { down: false, failed: 0 };
  const outage = { kind: 'err' as const, error: { code: 'run-store-error' as const, message: 'connection refused' } };
  const guard =
    <A extends unknown[], R>(write: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      if (!state.down) return write(...args);
      state.failed++;
      return outage as R;
    };
  const wrapped: RunStore = {
    ...store,
    finish: guard(store.finish.bind(store)),
    requeue: guard(store.requeue.bind(store)),
    heartbeat: guard(store.heartbeat.bind(store)),
  };
  return { store: wrapped, state };
}

describe('sharing the run queue', () => {
  it("refuses a tenant beyond its share of a pack's queue (default: a quarter), naming the tenant limit", async () => {
    const { app } = makeApp({ runs: { concurrencyPerPack: 0, maxQueuedPerPack: 8 } });
    for (let i = 0; i < 2; i++) {
      expect((await app.request('/v1/runs', jsonPost({ toolId: 'echo', input: i }))).status).toBe(202);
    }
    const refused = await app.request('/v1/runs', jsonPost({ toolId: 'echo', input: 3 }));
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    const error = await envelope(refused);
    expect(error.code).toBe('run-queue-full');
    expect(error.message).toMatch(/Tenant 'tenant-a' has 2 runs waiting .*limit per tenant/);
    expect((await app.request('/v1/runs', jsonPost({ toolId: 'echo', input: 4 }, AUTH_B))).status).toBe(202);
  });

  it('executes only runs of the packs it serves; a server serving the pack takes them', async () => {
    const runStore = createInMemoryRunStore();
    let enqueued = false;
    const looked = deferred();
    const watched: RunStore = {
      ...runStore,
      claim: async (request) => {
        const after = enqueued;
        const claimed = await runStore.claim(request);
        if (after && claimed.kind === 'ok' && claimed.value === null) looked.resolve();
        return claimed;
      },
    };
    const other = makeApp({ runStore: watched, servedPacks: () => ['another-pack'], runs: { pollMs: 20 } });
    const run = await json<Run>(other.app.request('/v1/runs', jsonPost({ toolId: 'echo', input: 7 })));
    enqueued = true;
    // The other server looked at the queue with the run in it, and left it there.
    await looked.promise;
    expect((await json<Run>(other.app.request(`/v1/runs/${run.runId}`, { headers: AUTH_A }))).status).toBe('queued');
    const serving = makeApp({ runStore, servedPacks: () => ['pack-demo'] });
    serving.app.startRuns();
    expect(await waitForRun(serving.app, run.runId)).toMatchObject({ status: 'completed', output: 7 });
  });

  it('holds an outcome the store cannot record, and records it once the store is back', async () => {
    const { store, state } = flakyStore(createInMemoryRunStore());
    const { lines, logger } = recordingLogger();
    const hold = deferred();
    const started = deferred();
    let starts = 0;
    const { app } = makeApp(
      { runStore: store, logger, runs: { leaseMs: 150, pollMs: 20 } },
      { hold: hold.promise, started: () => ++starts === 2 && started.resolve() },
    );
    const runs = await Promise.all(
      [1, 2].map((input) => json<Run>(app.request('/v1/runs', jsonPost({ toolId: 'hold', input })))),
    );
    await started.promise;
    state.down = true;
    hold.resolve();
    // Several retries, and heartbeats, fail while the lease (150 ms) runs out several times over.
    await until(() => state.failed >= 12, 'failed writes');
    state.down = false;
    for (const [i, run] of runs.entries()) {
      expect(await waitForRun(app, run.runId)).toMatchObject({ status: 'completed', output: i + 1 });
    }
    await until(() => lines.some((line) => /recorded the held outcomes/.test(line.message)), 'the landed line');
    const said = (pattern: RegExp) => lines.filter((line) => pattern.test(line.message));
    expect(said(/recording run outcomes is failing/)).toHaveLength(1);
    expect(said(/recorded the held outcomes/)).toEqual([
      expect.objectContaining({ fields: expect.objectContaining({ runs: 2, lost: 0 }) }),
    ]);
    expect(said(/interrupted|could not record/)).toEqual([]);
  });

  it('gives up after recordRetryMs, logging the run whose outcome it could not record', async () => {
    const { store, state } = flakyStore(createInMemoryRunStore());
    const { lines, logger } = recordingLogger();
    const { app } = makeApp({ runStore: store, logger, runs: { recordRetryMs: 200, leaseMs: 60_000 } });
    state.down = true;
    const run = await json<Run>(app.request('/v1/runs', jsonPost({ toolId: 'echo', input: 1 })));
    await until(() => lines.some((line) => /recorded the held outcomes/.test(line.message)), 'the end of retries');
    expect(lines.filter((line) => /gave up recording/.test(line.message))).toEqual([
      expect.objectContaining({ level: 'error', fields: expect.objectContaining({ runId: run.runId }) }),
    ]);
  });
});

/** Polls the run (every 10 ms, at most 10 s) until it is terminal. */
async function waitForRun(app: ReturnType<typeof makeApp>['app'], runId: string): Promise<Run> {
  for (let i = 0; i < 1_000; i++) {
    const run = await json<Run>(app.request(`/v1/runs/${runId}`, { headers: AUTH_A }));
    if (['completed', 'failed', 'cancelled'].includes(run.status)) return run;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`run ${runId} did not end`);
}
