import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  cleanupTempDirs,
  isAlive,
  makeTempDir,
  readCredentials,
  reapPackServices,
  startServer,
  stopAllServers,
  terminate,
  writeConfig,
} from './harness.js';
import { api, readRunStream, slowReportStep } from './http.js';

const CITATION = { input: { source: 'Brown v. Board', page: 483 } };

describe('faults', () => {
  afterEach(async () => {
    await stopAllServers();
    cleanupTempDirs();
  });

  it('the pack service crashing under load: calls in flight fail clearly, later calls succeed', async () => {
    // A configured deployment (tokens given): nothing generated, nothing printed.
    const dir = makeTempDir('crash');
    const dataDir = join(dir, 'data');
    const token = 'kgi_test_crash_0123456789abcdef';
    const server = await startServer(writeConfig(dir, dataDir, { tokens: [{ token, tenantId: 'tenant-a' }] }));
    expect(server.listening.development).toBe(false);
    expect(existsSync(join(dataDir, 'credentials.json'))).toBe(false);
    expect(server.stdout()).toBe('');
    const serving = await server.waitFor((record) => record.event === 'pack-child-serving', 'pack-child-serving');
    const pid = serving.pid as number;

    // Each call asks for a different step count, so its step records say it reached the pack service.
    // 40 steps of 250 ms: none can finish before the kill.
    const counts = [40, 41, 42, 43];
    const calls = counts.map((steps) =>
      api(server.url, token, 'POST', '/v1/tools/acme.slow-report/invoke', { input: { steps, stepMs: 250 } }),
    );
    await Promise.all(
      counts.map((of) =>
        server.waitFor((record) => slowReportStep(record, of) === 1, `call ${of} running in the pack`),
      ),
    );
    process.kill(pid, 'SIGKILL');

    const replies = await Promise.all(calls);
    for (const reply of replies) {
      expect(reply.status).toBe(502);
      expect(reply.body).toMatchObject({
        error: { code: 'pack-connection-failed', message: expect.stringMatching(/died/) },
      });
    }
    await server.waitFor(
      (record) => record.event === 'pack-child-exited' && record.pid === pid && record.expected === false,
      'the crashed child exit',
    );
    const replacement = await server.waitFor(
      (record) => record.event === 'pack-child-serving' && record.pid !== pid,
      'a restarted pack service',
    );
    expect(isAlive(pid)).toBe(false);
    expect(isAlive(replacement.pid as number)).toBe(true);

    const after = await Promise.all(
      [1, 2, 3].map(() => api(server.url, token, 'POST', '/v1/tools/acme.format-citation/invoke', CITATION)),
    );
    for (const reply of after) {
      expect(reply).toMatchObject({ status: 200, body: { output: { citation: '[Brown v. Board, p. 483]' } } });
    }
    const run = await api(server.url, token, 'POST', '/v1/runs', {
      toolId: 'acme.slow-report',
      input: { steps: 2, stepMs: 10 },
      options: { wait: true },
    });
    expect(run).toMatchObject({ status: 201, body: { status: 'completed', output: { stepsCompleted: 2 } } });
  });

  it('a server killed in the middle of a run: the next start fails the run instead of leaving it running', async () => {
    const dir = makeTempDir('kill9');
    const dataDir = join(dir, 'data');
    const configPath = writeConfig(dir, dataDir);
    const first = await startServer(configPath);
    const { token } = readCredentials(dataDir);
    const started = await api(first.url, token, 'POST', '/v1/runs', {
      toolId: 'acme.slow-report',
      input: { steps: 44, stepMs: 250 },
    });
    const { runId } = started.body as { runId: string };
    await first.waitFor((record) => slowReportStep(record, 44) === 1, 'the run running in the pack service');
    first.child.kill('SIGKILL');
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
    reapPackServices(first);

    const second = await startServer(configPath);
    const interrupted = second.records.find((record) => record.event === 'runs-interrupted');
    expect(interrupted).toMatchObject({ level: 'warn', runIds: [runId] });
    const run = await api(second.url, token, 'GET', `/v1/runs/${runId}`);
    expect(run).toMatchObject({ status: 200, body: { status: 'failed', error: { code: 'run-interrupted' } } });
    const events = await readRunStream(second.url, token, runId);
    expect(events.map((event) => event.event)).toEqual(['run.started', 'run.failed']);
  });

  it('a restart in the middle of idempotent retries replays the stored answers', async () => {
    const dir = makeTempDir('idem');
    const dataDir = join(dir, 'data');
    const configPath = writeConfig(dir, dataDir);
    const first = await startServer(configPath);
    const { token } = readCredentials(dataDir);

    const runBody = { toolId: 'acme.slow-report', input: { steps: 1, stepMs: 1 } };
    const runKey = { 'idempotency-key': 'retry-run-0001' };
    const callKey = { 'idempotency-key': 'retry-call-0001' };
    const started = await api(first.url, token, 'POST', '/v1/runs', runBody, runKey);
    expect(started.status).toBe(202);
    expect(started.headers.get('x-idempotent-replay')).toBeNull();
    const called = await api(first.url, token, 'POST', '/v1/tools/acme.format-citation/invoke', CITATION, callKey);
    expect(called.status).toBe(200);
    // A retry before the restart already replays.
    const early = await api(first.url, token, 'POST', '/v1/runs', runBody, runKey);
    expect(early.headers.get('x-idempotent-replay')).toBe('true');
    expect(early.body).toEqual(started.body);

    // SIGTERM while a keyed call is still running: the drain lets it finish and stores its answer.
    const slowBody = { input: { steps: 5, stepMs: 150 } };
    const slowKey = { 'idempotency-key': 'retry-slow-0001' };
    const slow = api(first.url, token, 'POST', '/v1/tools/acme.slow-report/invoke', slowBody, slowKey);
    await first.waitFor((record) => slowReportStep(record, 5) === 1, 'the keyed slow call running in the pack');
    expect(await terminate(first)).toEqual({ code: 0, signal: null });
    expect(await slow).toMatchObject({ status: 200, body: { output: { stepsCompleted: 5 } } });

    const second = await startServer(configPath);
    const slowRetry = await api(second.url, token, 'POST', '/v1/tools/acme.slow-report/invoke', slowBody, slowKey);
    expect(slowRetry).toMatchObject({ status: 200, body: { output: { stepsCompleted: 5 } } });
    expect(slowRetry.headers.get('x-idempotent-replay')).toBe('true');

    const replayed = await api(second.url, token, 'POST', '/v1/runs', runBody, runKey);
    expect(replayed.status).toBe(202);
    expect(replayed.headers.get('x-idempotent-replay')).toBe('true');
    // The same run, not a second one: the stored answer names the first run's id.
    expect(replayed.body).toEqual(started.body);
    const calledAgain = await api(
      second.url,
      token,
      'POST',
      '/v1/tools/acme.format-citation/invoke',
      CITATION,
      callKey,
    );
    expect(calledAgain).toMatchObject({ status: 200, body: called.body });
    expect(calledAgain.headers.get('x-idempotent-replay')).toBe('true');

    const runs = await api(second.url, token, 'GET', '/v1/runs?toolId=acme.slow-report');
    expect((runs.body as { data: unknown[] }).data).toHaveLength(1);

    // The same key with another body is refused, and stores nothing.
    const mismatch = await api(second.url, token, 'POST', '/v1/runs', { ...runBody, input: { steps: 2 } }, runKey);
    expect(mismatch).toMatchObject({ status: 409, body: { error: { code: 'idempotency-key-body-mismatch' } } });
  });
});
