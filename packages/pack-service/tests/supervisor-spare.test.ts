import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { createPackServiceClient } from '../src/client/client.js';
import { createPackServiceSupervisor } from '../src/supervisor/supervisor.js';
import { packDir, recorder, scratch, serviceCommand, writeIndex } from './supervisor-helpers.js';

const ctx = { tenantId: 't1', runId: 'r1' };
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function gone(pid: number, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (alive(pid) && Date.now() < deadline) await sleep(50);
  return !alive(pid);
}

/** A supervisor with `warmSpare`, whose children's environment is `env.value`, serving `index.json` in a temp folder. */
function setup() {
  const tmp = scratch();
  const log = recorder();
  const env = { value: { PATH: process.env.PATH ?? '', SUPERVISOR_TEST_FOO: 'one' } };
  const supervisor = createPackServiceSupervisor({
    command: serviceCommand(),
    moduleRoot: packDir,
    env: () => env.value,
    warmSpare: true,
    onEvent: log.onEvent,
    onLog: log.onLog,
    onOutput: log.onOutput,
  });
  cleanups.push(tmp.dispose, () => supervisor.close());
  const indexPath = join(tmp.dir, 'index.json');
  // One index path, rewritten for every version (as a watched pack's is).
  const publish = (version: string) => copyFileSync(writeIndex(tmp.dir, version), indexPath);
  return { log, supervisor, env, indexPath, publish };
}

describe('supervisor: a warm spare child', () => {
  it('serves the next start from the spare, which reads the index only once released', async () => {
    const { log, supervisor, indexPath, publish } = setup();
    const client = createPackServiceClient(await supervisor.listen());
    cleanups.push(() => client.close());
    publish('a');
    const first = await supervisor.start(indexPath);
    expect(first.kind).toBe('ok');
    const spare = await log.event('spare-spawned');
    expect(spare.pid).not.toBe(first.kind === 'ok' ? first.value.pid : -1);
    // The spare waits with its code loaded; the index it will serve is written after it started.
    await sleep(300);
    publish('b');
    const second = await supervisor.start(indexPath);
    expect(second).toMatchObject({ kind: 'ok', value: { pid: spare.pid } });
    expect(await log.event('child-spawned', (event) => event.pid === spare.pid)).toMatchObject({ spare: true });
    expect(await client.info()).toMatchObject({ kind: 'ok', value: { artifactVersion: 'b' } });
    const echoed = await client.invoke({ tool: 'supervisor-test.echo', input: { message: 'hi' }, ctx });
    expect(echoed).toMatchObject({ kind: 'ok', value: { output: { message: 'hi', pid: spare.pid } } });
    // And the next spare is started.
    const next = await log.event('spare-spawned', (event) => event.pid !== spare.pid);
    await supervisor.stop();
    expect(await gone(next.pid)).toBe(true);
  });

  it('starts afresh when the environment changed since the spare started, and kills that spare', async () => {
    const { log, supervisor, env, indexPath, publish } = setup();
    publish('a');
    expect((await supervisor.start(indexPath)).kind).toBe('ok');
    const spare = await log.event('spare-spawned');
    env.value = { ...env.value, SUPERVISOR_TEST_FOO: 'two' };
    const restarted = await supervisor.start(indexPath);
    expect(restarted.kind).toBe('ok');
    expect(restarted.kind === 'ok' && restarted.value.pid).not.toBe(spare.pid);
    expect(await gone(spare.pid)).toBe(true);
  });

  it('leaves no spare behind on close', async () => {
    const { log, supervisor, indexPath, publish } = setup();
    publish('a');
    expect((await supervisor.start(indexPath)).kind).toBe('ok');
    const spare = await log.event('spare-spawned');
    expect(alive(spare.pid)).toBe(true);
    await supervisor.close();
    expect(alive(spare.pid)).toBe(false);
  });
});
