import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  cleanupTempDirs,
  EXAMPLE_PACK_DIR,
  isAlive,
  makeTempDir,
  readCredentials,
  startServer,
  stopAllServers,
  terminate,
  writeConfig,
} from './harness.js';
import { api, openRunStream, slowReportStep } from './http.js';

describe('SIGTERM drains', () => {
  afterEach(async () => {
    await stopAllServers();
    cleanupTempDirs();
  });

  it('finishes the calls in flight, stops the pack service, logs stopped and exits 0', async () => {
    // No config file: every field from the environment, as a container would set it.
    const dir = makeTempDir('drain');
    const dataDir = join(dir, 'data');
    const server = await startServer(null, {
      cwd: dir,
      env: {
        KINDGI_SERVER_PORT: '0',
        KINDGI_SERVER_DRAIN_MS: '30000',
        KINDGI_SERVER_DATA_DIR: dataDir,
        KINDGI_SERVER_PACKS: JSON.stringify([{ dir: EXAMPLE_PACK_DIR, env: { ACME_API_BASE: 'https://a.invalid' } }]),
      },
    });
    const { token } = readCredentials(dataDir);
    const serving = await server.waitFor((record) => record.event === 'pack-child-serving', 'pack-child-serving');
    const packPid = serving.pid as number;

    // `of: 7` tells this call's step records apart from any other.
    const call = api(server.url, token, 'POST', '/v1/tools/acme.slow-report/invoke', {
      input: { steps: 7, stepMs: 150 },
    });
    await server.waitFor((record) => slowReportStep(record, 7) === 1, 'the slow call running in the pack service');
    server.child.kill('SIGTERM');

    const reply = await call;
    expect(reply).toMatchObject({ status: 200, body: { output: { stepsCompleted: 7 } } });
    // Its keep-alive socket is told to close with it, so an idle client cannot hold the drain open.
    expect(reply.headers.get('connection')).toBe('close');
    expect(await server.exited).toEqual({ code: 0, signal: null });
    const events = server.records.map((record) => record.event);
    expect(events).toContain('draining');
    expect(events.at(-1)).toBe('stopped');
    expect(events.indexOf('draining')).toBeLessThan(events.indexOf('pack-stopped'));
    expect(isAlive(packPid)).toBe(false);
    await expect(fetch(`${server.url}/health`)).rejects.toThrow();
  });

  it('lets a run in flight finish and record its outcome before exiting', async () => {
    const dir = makeTempDir('drain-run');
    const dataDir = join(dir, 'data');
    const configPath = writeConfig(dir, dataDir);
    const server = await startServer(configPath);
    const { token } = readCredentials(dataDir);

    const started = await api(server.url, token, 'POST', '/v1/runs', {
      toolId: 'acme.slow-report',
      input: { steps: 6, stepMs: 150 },
    });
    expect(started.status).toBe(202);
    const { runId } = started.body as { runId: string };
    const stream = await openRunStream(server.url, token, runId);
    await server.waitFor((record) => slowReportStep(record, 6) === 1, 'the run running in the pack service');
    expect(await terminate(server)).toEqual({ code: 0, signal: null });
    // The client following the run saw it to its end before the server went away.
    expect((await stream.events()).map((event) => event.event)).toEqual(['run.started', 'run.completed']);

    const restarted = await startServer(configPath);
    const run = await api(restarted.url, token, 'GET', `/v1/runs/${runId}`);
    expect(run).toMatchObject({ status: 200, body: { status: 'completed', output: { stepsCompleted: 6 } } });
  });
});
