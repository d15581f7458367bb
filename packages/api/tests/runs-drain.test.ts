import { describe, expect, it } from 'vitest';
import { AUTH_A, deferred, jsonPost, makeApp } from './helpers.js';

type Run = { runId: string; status: string };

async function startHeldRun(app: ReturnType<typeof makeApp>['app']): Promise<string> {
  const res = await app.request('/v1/runs', jsonPost({ toolId: 'hold', input: 1 }));
  expect(res.status).toBe(202);
  return ((await res.json()) as Run).runId;
}

async function statusOf(app: ReturnType<typeof makeApp>['app'], runId: string): Promise<string> {
  const res = await app.request(`/v1/runs/${runId}`, { headers: AUTH_A });
  return ((await res.json()) as Run).status;
}

describe('drainRuns (shutdown)', () => {
  it('waits for a run that finishes within the grace period', async () => {
    const hold = deferred();
    const { app } = makeApp({}, { hold: hold.promise });
    const runId = await startHeldRun(app);
    const draining = app.drainRuns(60_000);
    hold.resolve();
    expect(await draining).toEqual({ finished: 1, cancelled: 0 });
    expect(await statusOf(app, runId)).toBe('completed');
  });

  it('cancels a run still running when the grace period ends, journaling it', async () => {
    const hold = deferred();
    const { app } = makeApp({}, { hold: hold.promise });
    const runId = await startHeldRun(app);
    expect(await app.drainRuns(0)).toEqual({ finished: 0, cancelled: 1 });
    expect(await statusOf(app, runId)).toBe('cancelled');
    hold.resolve();
  });

  it('has nothing to do without runs', async () => {
    const { app } = makeApp();
    expect(await app.drainRuns(0)).toEqual({ finished: 0, cancelled: 0 });
  });
});
