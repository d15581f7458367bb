import { createInMemoryRunStore, readSse } from '@kindgi/testing';
import { describe, expect, it } from 'vitest';
import { AUTH_A, AUTH_B, deferred, envelope, jsonPost, makeApp } from './helpers.js';

type Run = { runId: string };

describe('GET /v1/runs/{runId}/stream', () => {
  it('streams run.started … run.completed as id/event/data frames and ends', async () => {
    const hold = deferred();
    const started = deferred();
    const { app } = makeApp({}, { hold: hold.promise, started: () => started.resolve() });
    const run = (await (
      await app.request('/v1/runs', jsonPost({ toolId: 'hold', input: { x: 1 }, guardrails: ['tone'] }))
    ).json()) as Run;
    const res = await app.request(`/v1/runs/${run.runId}/stream`, { headers: AUTH_A });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    await started.promise;
    hold.resolve();
    const { frames, ended } = await readSse(res);
    expect(ended).toBe(true);
    const events = frames.filter((f) => f.event !== undefined);
    expect(events.map((f) => [f.id, f.event])).toEqual([
      [`${run.runId}:1`, 'run.started'],
      [`${run.runId}:2`, 'run.completed'],
    ]);
    expect(JSON.parse(events[1]?.data ?? 'null')).toMatchObject({ status: 'completed', output: { x: 1 } });
  });

  it('journals guardrail.violation then run.failed for a halting guardrail', async () => {
    const { app } = makeApp();
    const run = (await (
      await app.request(
        '/v1/runs',
        jsonPost({ toolId: 'echo', input: 'secret', guardrails: ['no-secrets'], options: { wait: true } }),
      )
    ).json()) as Run;
    const { frames } = await readSse(await app.request(`/v1/runs/${run.runId}/stream`, { headers: AUTH_A }));
    expect(frames.map((f) => f.event)).toEqual(['run.started', 'guardrail.violation', 'run.failed']);
    expect(JSON.parse(frames[1]?.data ?? 'null')).toMatchObject({ guardrailId: 'no-secrets', action: 'halt' });
  });

  it('resumes after Last-Event-Id', async () => {
    const { app } = makeApp();
    const run = (await (
      await app.request('/v1/runs', jsonPost({ toolId: 'echo', input: 1, options: { wait: true } }))
    ).json()) as Run;
    const res = await app.request(`/v1/runs/${run.runId}/stream`, {
      headers: { ...AUTH_A, 'last-event-id': `${run.runId}:1` },
    });
    const { frames } = await readSse(res);
    expect(frames.map((f) => f.id)).toEqual([`${run.runId}:2`]);
  });

  it('ends with run.cancelled when the run is cancelled while streaming', async () => {
    const started = deferred();
    const { app } = makeApp({}, { hold: new Promise(() => undefined), started: () => started.resolve() });
    const run = (await (await app.request('/v1/runs', jsonPost({ toolId: 'hold', input: 1 }))).json()) as Run;
    await started.promise;
    const res = await app.request(`/v1/runs/${run.runId}/stream`, { headers: AUTH_A });
    const reading = readSse(res);
    await app.request(`/v1/runs/${run.runId}/cancel`, { method: 'POST', headers: AUTH_A });
    const { frames, ended } = await reading;
    expect(ended).toBe(true);
    expect(frames.map((f) => f.event)).toEqual(['run.started', 'run.cancelled']);
  });

  it('sends keep-alive comments while nothing happens', async () => {
    const hold = deferred();
    const { app } = makeApp({ sse: { keepAliveMs: 5, pollMs: 5 } }, { hold: hold.promise });
    const run = (await (await app.request('/v1/runs', jsonPost({ toolId: 'hold', input: 1 }))).json()) as Run;
    const res = await app.request(`/v1/runs/${run.runId}/stream`, { headers: AUTH_A });
    const { frames, ended } = await readSse(res, (seen) => seen.some((f) => f.comments.includes('keep-alive')));
    expect(ended).toBe(false);
    expect(frames.some((f) => f.comments.includes('keep-alive'))).toBe(true);
    hold.resolve();
  });

  it.each([
    ['a foreign run id', () => 'run-other:1', 'another run'],
    ['a sequence the journal never had', (runId: string) => `${runId}:99`, 'never had'],
    ['a malformed id', () => 'garbage', '<runId>:<sequence>'],
    ['a malformed sequence', (runId: string) => `${runId}:x`, '<runId>:<sequence>'],
  ])('400 bad-input for Last-Event-Id with %s', async (_label, header, message) => {
    const { app } = makeApp();
    const run = (await (
      await app.request('/v1/runs', jsonPost({ toolId: 'echo', input: 1, options: { wait: true } }))
    ).json()) as Run;
    const res = await app.request(`/v1/runs/${run.runId}/stream`, {
      headers: { ...AUTH_A, 'last-event-id': header(run.runId) },
    });
    expect(res.status).toBe(400);
    const error = await envelope(res);
    expect(error.code).toBe('bad-input');
    expect(error.message).toContain(message);
  });

  it('a journal that cannot be read ends the stream with an error frame', async () => {
    const runStore = createInMemoryRunStore();
    const { app } = makeApp({
      runStore: {
        ...runStore,
        listEvents: async () => ({ kind: 'err', error: { code: 'run-store-error', message: 'disk gone' } }),
      },
    });
    const run = (await (
      await app.request('/v1/runs', jsonPost({ toolId: 'echo', input: 1, options: { wait: true } }))
    ).json()) as Run;
    const { frames, ended } = await readSse(await app.request(`/v1/runs/${run.runId}/stream`, { headers: AUTH_A }));
    expect(ended).toBe(true);
    expect(frames.map((f) => [f.event, JSON.parse(f.data ?? 'null').code])).toEqual([['error', 'storage-unavailable']]);
  });

  it('404 for another tenant’s run', async () => {
    const { app } = makeApp();
    const run = (await (
      await app.request('/v1/runs', jsonPost({ toolId: 'echo', input: 1, options: { wait: true } }))
    ).json()) as Run;
    const res = await app.request(`/v1/runs/${run.runId}/stream`, { headers: AUTH_B });
    expect(res.status).toBe(404);
    expect((await envelope(res)).code).toBe('run-not-found');
  });
});
