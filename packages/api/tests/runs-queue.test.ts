import { createInMemoryRunStore, createScriptedRunHandler, readSse, scriptedReply } from '@kindgi/testing';
import { describe, expect, it } from 'vitest';
import { AUTH_A, deferred, envelope, jsonPost, makeApp, scriptedTools } from './helpers.js';

type Run = {
  runId: string;
  status: string;
  output?: unknown;
  outputSize?: number;
  error?: Record<string, unknown>;
};

async function json<T>(res: Response | Promise<Response>): Promise<T> {
  return (await (await res).json()) as T;
}

describe('run queue', () => {
  it('retries a run its pack refused with 503, after the Retry-After, and runs it once', async () => {
    let calls = 0;
    const runHandler = createScriptedRunHandler({
      ...scriptedTools(),
      unavailable: (input) => {
        calls++;
        if (calls <= 2) {
          return scriptedReply({ code: 'pack-unavailable', message: 'at capacity', status: 503, retryAfterMs: 5 });
        }
        return input;
      },
    });
    const { app } = makeApp({ runHandler });
    const run = await json<Run>(
      app.request('/v1/runs', jsonPost({ toolId: 'unavailable', input: { n: 1 }, options: { wait: true } })),
    );
    expect(run).toMatchObject({ status: 'completed', output: { n: 1 } });
    expect(calls).toBe(3);
    const { frames } = await readSse(await app.request(`/v1/runs/${run.runId}/stream`, { headers: AUTH_A }));
    expect(frames.map((f) => f.event)).toEqual(['run.started', 'run.completed']);
  });

  it('fails a run as pack-unavailable once the queue timeout would pass', async () => {
    const { app } = makeApp({ runs: { queueTimeoutMs: 100 } });
    const run = await json<Run>(
      app.request('/v1/runs', jsonPost({ toolId: 'unavailable', input: {}, options: { wait: true } })),
    );
    expect(run.status).toBe('failed');
    expect(run.error).toMatchObject({ code: 'pack-unavailable', message: expect.stringContaining('draining') });
  });

  it('answers 503 run-queue-full with Retry-After instead of accepting work it would drop', async () => {
    const hold = deferred();
    const started = deferred();
    const { app } = makeApp(
      { runs: { concurrencyPerPack: 1, maxQueuedPerPack: 2, maxQueuedPerTenant: 2 } },
      { hold: hold.promise, started: () => started.resolve() },
    );
    const first = await json<Run>(app.request('/v1/runs', jsonPost({ toolId: 'hold', input: 0 })));
    await started.promise;
    const queued = [
      await json<Run>(app.request('/v1/runs', jsonPost({ toolId: 'hold', input: 1 }))),
      await json<Run>(app.request('/v1/runs', jsonPost({ toolId: 'hold', input: 2 }))),
    ];
    expect(queued.map((r) => r.status)).toEqual(['queued', 'queued']);
    const refused = await app.request('/v1/runs', jsonPost({ toolId: 'hold', input: 3 }));
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect((await envelope(refused)).code).toBe('run-queue-full');
    hold.resolve();
    for (const run of [first, ...queued]) {
      const { frames } = await readSse(await app.request(`/v1/runs/${run.runId}/stream`, { headers: AUTH_A }));
      expect(frames.at(-1)?.event).toBe('run.completed');
    }
  });

  it('two apps on one store: the run executes once, streams on the other, and cancels from it', async () => {
    const runStore = createInMemoryRunStore();
    const hold = deferred();
    const started = deferred();
    let aborted = false;
    const a = makeApp(
      { runStore },
      { hold: hold.promise, started: () => started.resolve(), aborted: () => (aborted = true) },
    );
    const b = makeApp({ runStore, runs: { concurrencyPerPack: 0 } });
    const run = await json<Run>(a.app.request('/v1/runs', jsonPost({ toolId: 'hold', input: 1 })));
    await started.promise;
    const stream = await b.app.request(`/v1/runs/${run.runId}/stream`, { headers: AUTH_A });
    const cancelled = await b.app.request(`/v1/runs/${run.runId}/cancel`, { method: 'POST', headers: AUTH_A });
    expect(cancelled.status).toBe(200);
    const { frames } = await readSse(stream);
    expect(frames.map((f) => f.event)).toEqual(['run.started', 'run.cancelled']);
    expect(aborted).toBe(true);
    hold.resolve();
    expect((await json<Run>(a.app.request(`/v1/runs/${run.runId}`, { headers: AUTH_A }))).status).toBe('cancelled');
  });
});

describe('run records', () => {
  it('listings carry outputSize, never the output; GET /v1/runs/{id} has it', async () => {
    const { app } = makeApp();
    const input = { text: 'x'.repeat(200_000) };
    const run = await json<Run>(app.request('/v1/runs', jsonPost({ toolId: 'echo', input, options: { wait: true } })));
    const page = await app.request('/v1/runs', { headers: AUTH_A });
    const text = await page.text();
    // The input is listed (it is the caller's own, bounded by the body limit); the output is not.
    expect(text.length).toBeLessThan(250_000);
    const listed = (JSON.parse(text) as { data: Run[] }).data[0];
    expect(listed).toMatchObject({ runId: run.runId, outputSize: JSON.stringify(input).length });
    expect(listed).not.toHaveProperty('output');
    expect(await json<Run>(app.request(`/v1/runs/${run.runId}`, { headers: AUTH_A }))).toMatchObject({ output: input });
  });

  it('stores a deadline like every other failure: {code, message, details}', async () => {
    const { app } = makeApp();
    const run = await json<Run>(
      app.request('/v1/runs', jsonPost({ toolId: 'too-slow', input: {}, options: { wait: true } })),
    );
    expect(run.error).toEqual({
      code: 'deadline-exceeded',
      message: 'took too long',
      details: { packCode: 'deadline-exceeded' },
    });
  });

  it('a stream resumed after the terminal event ends at once', async () => {
    const { app } = makeApp({ sse: { maxDurationMs: 10 * 60_000, keepAliveMs: 60_000 } });
    const run = await json<Run>(
      app.request('/v1/runs', jsonPost({ toolId: 'echo', input: {}, options: { wait: true } })),
    );
    const res = await app.request(`/v1/runs/${run.runId}/stream`, {
      headers: { ...AUTH_A, 'last-event-id': `${run.runId}:2` },
    });
    expect(res.status).toBe(200);
    const { frames, ended } = await readSse(res);
    expect(ended).toBe(true);
    expect(frames.filter((f) => f.event !== undefined)).toEqual([]);
  });
});
