import { describe, expect, it } from 'vitest';
import { AUTH_A, AUTH_B, deferred, envelope, jsonPost, makeApp } from './helpers.js';

type Run = { runId: string; status: string; output?: unknown; error?: { code: string }; violations: unknown[] };

describe('POST /v1/runs', () => {
  it('201 with the finished run when options.wait', async () => {
    const { app } = makeApp();
    const res = await app.request(
      '/v1/runs',
      jsonPost({ toolId: 'echo', version: '1.2.0', input: { a: 1 }, options: { wait: true } }),
    );
    expect(res.status).toBe(201);
    const run = (await res.json()) as Run & Record<string, unknown>;
    expect(run).toMatchObject({
      tenantId: 'tenant-a',
      toolId: 'echo',
      version: '1.2.0',
      status: 'completed',
      input: { a: 1 },
      output: { a: 1 },
      violations: [],
      guardrails: [],
    });
    expect(run.finishedAt).toEqual(expect.any(String));
  });

  it('202 with the queued run and a Location', async () => {
    const hold = deferred();
    const { app } = makeApp({}, { hold: hold.promise });
    const res = await app.request('/v1/runs', jsonPost({ toolId: 'hold', input: 1 }));
    expect(res.status).toBe(202);
    const run = (await res.json()) as Run;
    expect(run.status).toBe('queued');
    expect(res.headers.get('location')).toBe(`/v1/runs/${run.runId}`);
    hold.resolve();
  });

  it('records a pack error as a failed run', async () => {
    const { app } = makeApp();
    const res = await app.request('/v1/runs', jsonPost({ toolId: 'bad-input', input: {}, options: { wait: true } }));
    const run = (await res.json()) as Run;
    expect(run.status).toBe('failed');
    expect(run.error).toMatchObject({ code: 'input-validation-failed' });
  });

  it('records a thrown handler without its stack', async () => {
    const { app } = makeApp();
    const res = await app.request('/v1/runs', jsonPost({ toolId: 'throws', input: {}, options: { wait: true } }));
    const run = (await res.json()) as Run & { error: { code: string; details?: Record<string, unknown> } };
    expect(run.error).toEqual({
      code: 'handler-throw',
      message: expect.any(String),
      details: { packCode: 'handler-throw', toolId: 'throws', cause: { name: 'TypeError', message: 'boom' } },
    });
  });

  it.each([
    [{ toolId: 'nope', input: {} }, 404, 'tool-not-found'],
    [{ toolId: 'echo', version: '0.0.1', input: {} }, 404, 'tool-version-not-found'],
    [{ toolId: 'echo', input: {}, guardrails: ['nope'] }, 404, 'guardrail-not-found'],
    [{ toolId: 'echo' }, 400, 'validation-failed'],
    [{ toolId: 'echo', input: {}, options: { deadlineMs: 0 } }, 400, 'validation-failed'],
    [{ toolId: 'echo', input: {}, extra: true }, 400, 'unknown-field'],
  ])('%j → %i %s', async (body, status, code) => {
    const { app } = makeApp();
    const res = await app.request('/v1/runs', jsonPost(body));
    expect(res.status).toBe(status);
    expect((await envelope(res)).code).toBe(code);
  });

  it('501 guardrails-unsupported when no check binding is configured', async () => {
    const { app } = makeApp({ runCheck: undefined });
    const res = await app.request('/v1/runs', jsonPost({ toolId: 'echo', input: {}, guardrails: ['tone'] }));
    expect(res.status).toBe(501);
    expect((await envelope(res)).code).toBe('guardrails-unsupported');
  });
});

describe('guardrails on runs', () => {
  it('a failed halt guardrail fails the run with guardrail-violation and drops the output', async () => {
    const { app } = makeApp();
    const res = await app.request(
      '/v1/runs',
      jsonPost({
        toolId: 'echo',
        input: { text: 'the secret!!' },
        guardrails: ['tone', 'no-secrets'],
        options: { wait: true },
      }),
    );
    const run = (await res.json()) as Run;
    expect(run.status).toBe('failed');
    expect(run.error).toMatchObject({ code: 'guardrail-violation', details: { guardrailId: 'no-secrets' } });
    expect(run.output).toBeUndefined();
    expect(run.violations).toEqual([
      {
        guardrailId: 'tone',
        checkId: 'tone-check',
        action: 'log-only',
        severity: 'warn',
        reason: 'shouting (strict=false)',
      },
      {
        guardrailId: 'no-secrets',
        checkId: 'no-secrets',
        action: 'halt',
        severity: 'critical',
        reason: 'output contains a secret',
      },
    ]);
  });

  it("resolves the run's tool when it executes (no pack hint), and checks in each guardrail's pack", async () => {
    const seen: unknown[] = [];
    const { runHandler } = makeApp();
    const { app } = makeApp({
      runHandler: async (call) => {
        seen.push({ tool: call.tool, packId: call.packId });
        return runHandler(call);
      },
      runCheck: async (call) => {
        seen.push({ check: call.check, packId: call.packId });
        return { kind: 'ok', value: { v: 2, kind: 'check-result', result: { passed: true } } };
      },
    });
    const res = await app.request(
      '/v1/runs',
      jsonPost({ toolId: 'echo', version: '1.0.0', input: {}, guardrails: ['tone'], options: { wait: true } }),
    );
    expect(((await res.json()) as Run).status).toBe('completed');
    expect(seen).toEqual([
      { tool: { id: 'echo', version: '1.0.0' }, packId: undefined },
      { check: { id: 'tone-check' }, packId: 'pack-demo' },
    ]);
  });

  it('other actions are recorded as violations and the run completes', async () => {
    const traces: unknown[] = [];
    const { app } = makeApp({
      runCheck: async (call) => {
        traces.push(call.trace);
        return { kind: 'ok', value: { v: 2, kind: 'check-result', result: { passed: false, reason: 'meh' } } };
      },
    });
    const res = await app.request(
      '/v1/runs',
      jsonPost({ toolId: 'echo', input: { q: 1 }, guardrails: ['tone'], options: { wait: true } }),
    );
    const run = (await res.json()) as Run;
    expect(run.status).toBe('completed');
    expect(run.output).toEqual({ q: 1 });
    expect(run.violations).toHaveLength(1);
    expect(traces).toEqual([
      {
        runId: run.runId,
        tenantId: 'tenant-a',
        userInput: { q: 1 },
        output: { q: 1 },
        toolCalls: [{ toolId: 'echo', input: { q: 1 } }],
        toolResults: [{ toolId: 'echo', output: { q: 1 } }],
        mode: 'runtime',
      },
    ]);
  });
});

describe('reading and cancelling runs', () => {
  it('GET one run; another tenant gets 404', async () => {
    const { app } = makeApp();
    const run = (await (
      await app.request('/v1/runs', jsonPost({ toolId: 'echo', input: 1, options: { wait: true } }))
    ).json()) as Run;
    const mine = await app.request(`/v1/runs/${run.runId}`, { headers: AUTH_A });
    expect(((await mine.json()) as Run).status).toBe('completed');
    const theirs = await app.request(`/v1/runs/${run.runId}`, { headers: AUTH_B });
    expect(theirs.status).toBe(404);
    expect((await envelope(theirs)).code).toBe('run-not-found');
  });

  it('lists newest first with status/toolId filters and cursor pages', async () => {
    const { app } = makeApp();
    for (const toolId of ['echo', 'throws', 'echo']) {
      await app.request('/v1/runs', jsonPost({ toolId, input: 1, options: { wait: true } }));
    }
    const failed = (await (await app.request('/v1/runs?status=failed', { headers: AUTH_A })).json()) as { data: Run[] };
    expect(failed.data.map((r) => r.status)).toEqual(['failed']);
    const echo = (await (await app.request('/v1/runs?toolId=echo&limit=1', { headers: AUTH_A })).json()) as {
      data: Run[];
      nextCursor: string;
    };
    expect(echo.data).toHaveLength(1);
    const next = (await (
      await app.request(`/v1/runs?toolId=echo&limit=1&cursor=${echo.nextCursor}`, { headers: AUTH_A })
    ).json()) as { data: Run[]; hasMore: boolean };
    expect(next.data).toHaveLength(1);
    expect(next.data[0]?.runId).not.toBe(echo.data[0]?.runId);
    expect(next.hasMore).toBe(false);
    expect((await app.request('/v1/runs?status=done', { headers: AUTH_A })).status).toBe(400);
    expect((await app.request(`/v1/runs?cursor=${echo.nextCursor}`, { headers: AUTH_A })).status).toBe(400);
    expect((await app.request('/v1/runs?limit=101', { headers: AUTH_A })).status).toBe(400);
    const other = (await (await app.request('/v1/runs', { headers: AUTH_B })).json()) as { data: Run[] };
    expect(other.data).toEqual([]);
  });

  it('cancels a running run (aborting the call), then 409 run-already-terminal', async () => {
    const started = deferred();
    const aborted = deferred<unknown>();
    const { app } = makeApp(
      {},
      { hold: new Promise(() => undefined), started: () => started.resolve(), aborted: aborted.resolve },
    );
    const run = (await (await app.request('/v1/runs', jsonPost({ toolId: 'hold', input: 1 }))).json()) as Run;
    await started.promise;
    const res = await app.request(`/v1/runs/${run.runId}/cancel`, { method: 'POST', headers: AUTH_A });
    expect(res.status).toBe(200);
    expect(((await res.json()) as Run).status).toBe('cancelled');
    await aborted.promise;
    const again = await app.request(`/v1/runs/${run.runId}/cancel`, { method: 'POST', headers: AUTH_A });
    expect(again.status).toBe(409);
    expect((await envelope(again)).code).toBe('run-already-terminal');
    expect(((await (await app.request(`/v1/runs/${run.runId}`, { headers: AUTH_A })).json()) as Run).status).toBe(
      'cancelled',
    );
    const foreign = await app.request(`/v1/runs/${run.runId}/cancel`, { method: 'POST', headers: AUTH_B });
    expect(foreign.status).toBe(404);
  });

  it('is not mounted without a run store', async () => {
    const { app } = makeApp({ runStore: undefined });
    const res = await app.request('/v1/runs', { headers: AUTH_A });
    expect(res.status).toBe(404);
    expect((await envelope(res)).code).toBe('route-not-found');
  });
});
