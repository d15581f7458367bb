import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createPackServiceClient } from '../src/client/client.js';
import { createPackServiceSupervisor, type PackServiceSupervisor } from '../src/supervisor/supervisor.js';
import type { PackServiceSupervisorOptions } from '../src/supervisor/types.js';
import { packDir, recorder, scratch, serviceCommand, writeIndex } from './supervisor-helpers.js';

const ctx = { tenantId: 't1', runId: 'r1' };
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function setup(
  env: () => Record<string, string> = () => ({ PATH: process.env.PATH ?? '' }),
  extra: Partial<PackServiceSupervisorOptions> = {},
) {
  const tmp = scratch();
  const log = recorder();
  let commandCalls = 0;
  const supervisor: PackServiceSupervisor = createPackServiceSupervisor({
    command: () => {
      commandCalls++;
      return serviceCommand();
    },
    moduleRoot: packDir,
    env,
    onEvent: log.onEvent,
    onLog: log.onLog,
    onOutput: log.onOutput,
    ...extra,
  });
  cleanups.push(tmp.dispose, () => supervisor.close());
  return { tmp, log, supervisor, commandCalls: () => commandCalls };
}

describe('supervisor: code swaps', () => {
  it('switches calls to the new child once it listens; the old one finishes its call, then stops', async () => {
    const { tmp, log, supervisor, commandCalls } = setup();
    const front = await supervisor.listen();
    const client = createPackServiceClient(front);
    cleanups.push(() => client.close());

    const first = await supervisor.start(writeIndex(tmp.dir, 'a'));
    expect(first.kind).toBe('ok');
    const firstPid = first.kind === 'ok' ? first.value.pid : -1;

    const release = join(tmp.dir, 'release');
    const held = client.invoke({ tool: 'supervisor-test.hold', input: { path: release }, ctx });
    await log.line((line) => line === `hold: ${release}`);

    const second = await supervisor.start(writeIndex(tmp.dir, 'b'));
    expect(second.kind).toBe('ok');
    const secondPid = second.kind === 'ok' ? second.value.pid : -1;
    expect(secondPid).not.toBe(firstPid);
    expect(supervisor.servingPid).toBe(secondPid);
    expect(commandCalls()).toBe(2);

    const after = await client.invoke({ tool: 'supervisor-test.echo', input: { message: 'hi' }, ctx });
    expect(after).toEqual({ kind: 'ok', value: { v: 2, kind: 'result', output: { message: 'hi', pid: secondPid } } });

    // The old child is still draining its held call: it must not have been stopped yet.
    expect(log.events.some((event) => event.kind === 'child-exited' && event.pid === firstPid)).toBe(false);
    writeFileSync(release, '');
    expect(await held).toEqual({
      kind: 'ok',
      value: { v: 2, kind: 'result', output: { released: true, pid: firstPid } },
    });
    const exited = await log.event('child-exited', (event) => event.pid === firstPid);
    expect(exited).toMatchObject({ expected: true, exitCode: 0 });
  });

  it('keeps the previous child serving when a new one fails to boot, and reports why', async () => {
    const { tmp, log, supervisor } = setup();
    const front = await supervisor.listen();
    const client = createPackServiceClient(front);
    cleanups.push(() => client.close());
    const good = await supervisor.start(writeIndex(tmp.dir, 'good'));
    expect(good.kind).toBe('ok');

    const bad = await supervisor.start(writeIndex(tmp.dir, 'bad', { broken: true }));
    expect(bad.kind).toBe('err');
    if (bad.kind !== 'err') return;
    expect(bad.error.code).toBe('boot-failed');
    expect(bad.error.exitCode).toBe(1);
    expect(bad.error.problems.join('\n')).toContain('missing.mjs');
    expect(log.events.some((event) => event.kind === 'boot-failed')).toBe(true);

    const still = await client.invoke({ tool: 'supervisor-test.echo', input: { message: 'x' }, ctx });
    expect(still.kind === 'ok' && still.value.kind).toBe('result');
    expect(supervisor.servingPid).toBe(good.kind === 'ok' ? good.value.pid : -1);
  });

  it('gives the child exactly env() plus PORT=0 and JSON logs, the token on a descriptor, in no environment block', async () => {
    const { tmp, supervisor } = setup(() => ({ PATH: process.env.PATH ?? '', SUPERVISOR_TEST_FOO: 'bar' }));
    process.env.SUPERVISOR_TEST_LEAK = 'parent only';
    cleanups.push(() => {
      delete process.env.SUPERVISOR_TEST_LEAK;
    });
    const front = await supervisor.listen();
    const client = createPackServiceClient(front);
    cleanups.push(() => client.close());
    expect((await supervisor.start(writeIndex(tmp.dir, 'env'))).kind).toBe('ok');
    const reply = await client.invoke({ tool: 'supervisor-test.env', input: {}, ctx });
    const names = ['KINDGI_LOG_FORMAT', 'PATH', 'PORT', 'SUPERVISOR_TEST_FOO'];
    expect(reply).toEqual({ kind: 'ok', value: { v: 2, kind: 'result', output: { names, block: names } } });
  });

  it("with tokenVia 'env' sets KINDGI_PACK_SERVICE_TOKEN, which still never reaches pack code", async () => {
    const { tmp, supervisor } = setup(() => ({ PATH: process.env.PATH ?? '' }), { tokenVia: 'env' });
    const front = await supervisor.listen();
    const client = createPackServiceClient(front);
    cleanups.push(() => client.close());
    const started = await supervisor.start(writeIndex(tmp.dir, 'env-token'));
    expect(started).toMatchObject({ kind: 'ok' });
    const reply = await client.invoke({ tool: 'supervisor-test.env', input: {}, ctx });
    const names = ['KINDGI_LOG_FORMAT', 'PATH', 'PORT'];
    expect(reply).toEqual({ kind: 'ok', value: { v: 2, kind: 'result', output: { names, block: names } } });
  });

  it('reports a command that cannot be spawned', async () => {
    const tmp = scratch();
    cleanups.push(tmp.dispose);
    const supervisor = createPackServiceSupervisor({
      command: [join(tmp.dir, 'no-such-program')],
      moduleRoot: packDir,
      env: () => ({}),
    });
    cleanups.push(() => supervisor.close());
    const outcome = await supervisor.start(writeIndex(tmp.dir, 'x'));
    expect(outcome.kind === 'err' && outcome.error.code).toBe('spawn-failed');
  });

  it('reports a start that stop() overtook, and serves nothing', async () => {
    const tmp = scratch();
    cleanups.push(tmp.dispose);
    let commandAsked!: () => void;
    const asked = new Promise<void>((resolve) => {
      commandAsked = resolve;
    });
    let stopped!: () => void;
    const stopDone = new Promise<void>((resolve) => {
      stopped = resolve;
    });
    const supervisor = createPackServiceSupervisor({
      // The command is being worked out when stop() comes.
      command: async () => {
        commandAsked();
        await stopDone;
        return serviceCommand();
      },
      moduleRoot: packDir,
      env: () => ({ PATH: process.env.PATH ?? '' }),
    });
    cleanups.push(() => supervisor.close());
    const index = writeIndex(tmp.dir, 'overtaken');
    const pending = supervisor.start(index);
    await asked;
    await supervisor.stop();
    stopped();
    expect(await pending).toMatchObject({ kind: 'err', error: { code: 'stopped' } });
    expect(supervisor.servingPid).toBeUndefined();

    const immediate = supervisor.start(index);
    await supervisor.stop();
    expect(await immediate).toMatchObject({ kind: 'err', error: { code: 'stopped' } });
  });

  it('fails a start whose child neither listens nor exits in time, killing it', async () => {
    const tmp = scratch();
    cleanups.push(tmp.dispose);
    const supervisor = createPackServiceSupervisor({
      // A program that ignores its arguments and never listens.
      command: [process.execPath, '-e', 'setInterval(() => {}, 1000)', '--'],
      moduleRoot: packDir,
      env: () => ({ PATH: process.env.PATH ?? '' }),
      bootTimeoutMs: 300,
    });
    cleanups.push(() => supervisor.close());
    const outcome = await supervisor.start(writeIndex(tmp.dir, 'silent'));
    expect(outcome).toMatchObject({ kind: 'err', error: { code: 'boot-timeout' } });
  });
});
