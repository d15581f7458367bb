import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createPackServiceClient } from '../src/client/client.js';
import { createPackServiceSupervisor, SupervisorError } from '../src/supervisor/supervisor.js';
import { packDir, recorder, scratch, serviceCommand, writeIndex } from './supervisor-helpers.js';

const ctx = { tenantId: 't1', runId: 'r1' };
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function setup() {
  const tmp = scratch();
  const log = recorder();
  const supervisor = createPackServiceSupervisor({
    command: serviceCommand(),
    moduleRoot: packDir,
    env: () => ({ PATH: process.env.PATH ?? '' }),
    onEvent: log.onEvent,
    onLog: log.onLog,
    onOutput: log.onOutput,
    restartBackoff: { initialMs: 50 },
  });
  cleanups.push(tmp.dispose, () => supervisor.close());
  return { tmp, log, supervisor };
}

async function call(url: string, path: string, init: RequestInit = {}) {
  const res = await fetch(new URL(path, url), init);
  return { status: res.status, headers: res.headers, body: await res.json() };
}

describe('supervisor: the front', () => {
  it('refuses a malformed session token', () => {
    const make = () =>
      createPackServiceSupervisor({ command: ['x'], moduleRoot: '.', env: () => ({}), token: 'short' });
    expect(make).toThrow(SupervisorError);
    const token = 'A'.repeat(32);
    expect(createPackServiceSupervisor({ command: ['x'], moduleRoot: '.', env: () => ({}), token }).token).toBe(token);
  });

  it('keeps one URL across listen() calls, and rejects a port already taken', async () => {
    const { supervisor } = setup();
    // Concurrent calls share one bind rather than opening two fronts.
    const [first, second] = await Promise.all([supervisor.listen(), supervisor.listen()]);
    expect(second).toEqual(first);
    expect(await supervisor.listen()).toEqual(first);
    const port = Number(new URL(first.url).port);
    const other = createPackServiceSupervisor({ command: ['x'], moduleRoot: '.', env: () => ({}), port });
    await expect(other.listen()).rejects.toMatchObject({ name: 'SupervisorError', code: 'listen-failed' });
    await other.close();
    // After close() the supervisor can listen again, on a new port.
    await supervisor.close();
    expect(supervisor.url).toBeUndefined();
    const again = await supervisor.listen();
    expect(again.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('answers health, routes and auth itself, and 503 + retry-after while no child serves', async () => {
    const { supervisor } = setup();
    const { url, token } = await supervisor.listen();
    expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(await call(url, '/healthz')).toMatchObject({ status: 200, body: { status: 'ok' } });
    const readyz = await call(url, '/readyz');
    expect(readyz).toMatchObject({ status: 503, body: { error: 'no pack service' } });
    expect(readyz.headers.get('retry-after')).toBe('1');
    expect(await call(url, '/nope?x=1')).toMatchObject({ status: 404, body: { error: 'No route /nope?x=1' } });
    expect(await call(url, '/v1/invoke')).toMatchObject({ status: 405, body: { error: 'Use POST' } });
    expect(await call(url, '/v1/info', { method: 'POST' })).toMatchObject({ status: 405, body: { error: 'Use GET' } });
    const noToken = await call(url, '/v1/info', { headers: { 'kindgi-pack-token': 'wrong' } });
    expect(noToken).toMatchObject({ status: 401, body: { error: 'Bad pack token' } });
    const invoke = await call(url, '/v1/invoke', {
      method: 'POST',
      headers: { 'kindgi-pack-token': token, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(invoke).toMatchObject({ status: 503, body: { error: 'no pack service' } });
    expect(invoke.headers.get('retry-after')).toBe('1');
  });

  it('relays the child’s status, body and headers, and forwards the deadline and trace context', async () => {
    const { tmp, log, supervisor } = setup();
    const { url, token } = await supervisor.listen();
    expect((await supervisor.start(writeIndex(tmp.dir, 'relay-1'))).kind).toBe('ok');
    expect(await call(url, '/readyz')).toMatchObject({ status: 200, body: { status: 'ready' } });

    const info = await call(url, '/v1/info', { headers: { 'kindgi-pack-token': token } });
    expect(info.status).toBe(200);
    expect(info.body).toMatchObject({ protocol: 2, packId: 'supervisor-test', artifactVersion: 'relay-1' });

    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const res = await call(url, '/v1/invoke', {
      method: 'POST',
      headers: {
        'kindgi-pack-token': token,
        'content-type': 'application/json',
        'kindgi-timeout-ms': '300',
        traceparent: `00-${traceId}-00f067aa0ba902b7-01`,
        'kindgi-run-id': 'r1',
        'kindgi-request-id': 'q1',
      },
      body: JSON.stringify({
        v: 2,
        kind: 'invoke',
        tool: { id: 'supervisor-test.hold' },
        input: { path: join(tmp.dir, 'never') },
        ctx,
      }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('kindgi-artifact-version')).toBe('relay-1');
    expect(Number(res.headers.get('kindgi-duration-ms'))).toBeGreaterThanOrEqual(0);
    expect(res.body).toMatchObject({ v: 2, kind: 'error', code: 'deadline-exceeded', toolId: 'supervisor-test.hold' });
    const record = await log.record((r) => r.kind === 'call' && r.record.outcome === 'deadline-exceeded');
    expect(record.record.traceId).toBe(traceId);

    // A status the child chose (415) passes through as it is.
    const unsupported = await call(url, '/v1/invoke', {
      method: 'POST',
      headers: { 'kindgi-pack-token': token, 'content-type': 'text/plain' },
      body: 'x',
    });
    expect(unsupported).toMatchObject({ status: 415, body: { error: 'Content-Type must be application/json' } });
  });

  it('cancels the forwarded call when the caller disconnects', async () => {
    const { tmp, log, supervisor } = setup();
    const front = await supervisor.listen();
    const client = createPackServiceClient(front);
    cleanups.push(() => client.close());
    expect((await supervisor.start(writeIndex(tmp.dir, 'cancel'))).kind).toBe('ok');
    const abort = new AbortController();
    const release = join(tmp.dir, 'never-created');
    const pending = client.invoke({
      tool: 'supervisor-test.hold',
      input: { path: release },
      ctx,
      signal: abort.signal,
    });
    await log.line((line) => line === `hold: ${release}`);
    abort.abort();
    expect(await pending).toMatchObject({ kind: 'err', error: { code: 'pack-call-aborted' } });
    const record = await log.record((r) => r.kind === 'call' && r.record.outcome === 'cancelled');
    expect(record.record.id).toBe('supervisor-test.hold');
  });

  it('answers 502 for a call on a child that died, restarts the child, and serves again', async () => {
    const { tmp, log, supervisor } = setup();
    const front = await supervisor.listen();
    const client = createPackServiceClient(front);
    cleanups.push(() => client.close());
    const started = await supervisor.start(writeIndex(tmp.dir, 'crash'));
    if (started.kind !== 'ok') throw new Error(started.error.message);
    const release = join(tmp.dir, 'never-released');
    const pending = client.invoke({ tool: 'supervisor-test.hold', input: { path: release }, ctx });
    await log.line((line) => line === `hold: ${release}`);
    const mark = log.events.length;
    process.kill(started.value.pid, 'SIGKILL');
    expect(await pending).toMatchObject({ kind: 'err', error: { code: 'pack-connection-failed', status: 502 } });
    const exited = await log.event('child-exited', (event) => event.pid === started.value.pid);
    expect(exited).toMatchObject({ expected: false, signal: 'SIGKILL' });
    await log.event('restart-scheduled', () => true, mark);
    const serving = await log.event('child-serving', () => true, mark);
    expect(serving.pid).not.toBe(started.value.pid);
    const again = await client.invoke({ tool: 'supervisor-test.echo', input: { message: 'back' }, ctx });
    expect(again).toMatchObject({
      kind: 'ok',
      value: { kind: 'result', output: { message: 'back', pid: serving.pid } },
    });
  });

  it('stop() leaves the front answering 503; close() closes it', async () => {
    const { tmp, log, supervisor } = setup();
    const { url, token } = await supervisor.listen();
    const started = await supervisor.start(writeIndex(tmp.dir, 'stop'));
    if (started.kind !== 'ok') throw new Error(started.error.message);
    await supervisor.stop();
    expect(log.events.find((e) => e.kind === 'child-exited' && e.pid === started.value.pid)).toMatchObject({
      expected: true,
    });
    expect(await call(url, '/readyz')).toMatchObject({ status: 503 });
    expect(await call(url, '/v1/info', { headers: { 'kindgi-pack-token': token } })).toMatchObject({ status: 503 });
    expect(supervisor.servingPid).toBeUndefined();
    await supervisor.close();
    await expect(fetch(new URL('/healthz', url))).rejects.toThrow();
  });
});
