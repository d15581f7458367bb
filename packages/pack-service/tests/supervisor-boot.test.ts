import { err, ok, type Result } from '@kindgi/protocol';
import { describe, expect, it } from 'vitest';
import { type BootOptions, bootChild } from '../src/supervisor/boot.js';
import type { Child, SpawnChildOptions } from '../src/supervisor/child.js';
import { childLaunch } from '../src/supervisor/launch.js';
import type { SupervisorEvent, SupervisorStartError } from '../src/supervisor/types.js';

const token = 'session-token-0123456789abcdefghijkl';
type Booted = Result<{ port: number }, SupervisorStartError>;

const childFailed: SupervisorStartError = {
  code: 'boot-failed',
  message: 'The pack service exited with code 1 before listening: bad module',
  problems: ['bad module'],
  exitCode: 1,
  signal: null,
  output: [],
};

/** A boot whose child is a fake that boots as `outcome` says, recording what the boot did to it. */
function harness(options: { command?: BootOptions['command']; outcome?: Booted; stale?: () => boolean } = {}) {
  const events: SupervisorEvent[] = [];
  const spawned: SpawnChildOptions[] = [];
  const kills: string[] = [];
  const tracked: string[] = [];
  let commandCalls = 0;
  let release!: () => void;
  const bootedGate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let onSpawn!: () => void;
  const whenSpawned = new Promise<void>((resolve) => {
    onSpawn = resolve;
  });
  const fake = (spawnOptions: SpawnChildOptions): Child => {
    spawned.push(spawnOptions);
    onSpawn();
    return {
      pid: 42,
      indexPath: spawnOptions.indexPath,
      booted: bootedGate.then(() => options.outcome ?? ok({ port: 4_000 })),
      exited: new Promise(() => undefined),
      hasExited: false,
      kill: (signal) => void kills.push(signal),
    };
  };
  const deps = {
    options: {
      command:
        options.command ??
        (() => {
          commandCalls++;
          return ['node', 'main.js'];
        }),
      env: () => ({ PATH: '/bin' }),
      moduleRoot: '/pack',
      bootTimeoutMs: 1_234,
    },
    token,
    emit: (event: SupervisorEvent) => void events.push(event),
    began: (child: Child) => void tracked.push(`began ${child.pid}`),
    ended: (child: Child) => void tracked.push(`ended ${child.pid}`),
    spawn: fake,
  };
  const run = (stale = options.stale ?? (() => false)) =>
    bootChild(deps, { indexPath: '/i.json', reason: 'restart', stale });
  return {
    options: deps.options,
    run,
    release,
    whenSpawned,
    events,
    spawned,
    kills,
    tracked,
    commandCalls: () => commandCalls,
  };
}

describe('supervisor: one boot', () => {
  it('spawns the launch of the resolved command, tracks the child while it boots, and hands it back', async () => {
    const h = harness();
    const boot = h.run();
    h.release();
    const outcome = await boot;
    expect(outcome.kind === 'ok' && outcome.value.port).toBe(4_000);
    expect(outcome.kind === 'ok' && outcome.value.child.pid).toBe(42);
    expect(h.spawned).toHaveLength(1);
    // The launch itself (argv, env, token) is childLaunch's, tested in supervisor-launch.test.ts.
    expect(h.spawned[0]).toMatchObject({
      ...childLaunch(h.options, ['node', 'main.js'], '/i.json', token),
      indexPath: '/i.json',
      bootTimeoutMs: 1_234,
    });
    expect(h.tracked).toEqual(['began 42', 'ended 42']);
    expect(h.events).toEqual([{ kind: 'child-spawned', pid: 42, indexPath: '/i.json', reason: 'restart' }]);
    expect(h.kills).toEqual([]);
  });

  it.each([
    ['throws', () => Promise.reject(new Error('no jar')), 'The command function threw: Error: no jar'],
    ['gives an empty list', () => [], '`command` must give a non-empty list of strings'],
    ['gives a non-string', () => ['java', 1 as unknown as string], '`command` must give a non-empty list of strings'],
  ])('is command-invalid when the command function %s, and spawns nothing', async (_, command, message) => {
    const h = harness({ command });
    const outcome = await h.run();
    expect(outcome).toEqual(
      err({ code: 'command-invalid', message, problems: [], exitCode: null, signal: null, output: [] }),
    );
    expect(h.spawned).toEqual([]);
  });

  it('is stopped without asking for the command when a stop came first', async () => {
    const h = harness({ stale: () => true });
    const outcome = await h.run();
    expect(outcome.kind === 'err' && outcome.error.code).toBe('stopped');
    expect(h.commandCalls()).toBe(0);
    expect(h.spawned).toEqual([]);
  });

  it('is stopped without spawning when a stop came while the command was resolved', async () => {
    let stopped = false;
    const h = harness({
      command: async () => {
        stopped = true;
        return ['node', 'main.js'];
      },
    });
    const outcome = await h.run(() => stopped);
    expect(outcome.kind === 'err' && outcome.error).toMatchObject({
      code: 'stopped',
      message: 'The supervisor was stopped before the pack service started',
    });
    expect(h.spawned).toEqual([]);
  });

  it('reports a child that fails to boot and kills it', async () => {
    const h = harness({ outcome: err(childFailed) });
    const boot = h.run();
    h.release();
    expect(await boot).toEqual(err(childFailed));
    expect(h.events.at(-1)).toEqual({
      kind: 'boot-failed',
      pid: 42,
      problems: ['bad module'],
      exitCode: 1,
      signal: null,
    });
    expect(h.kills).toEqual(['SIGKILL']);
    expect(h.tracked).toEqual(['began 42', 'ended 42']);
  });

  it('is stopped, not boot-failed, when a stop during the boot made the child fail', async () => {
    let stopped = false;
    const h = harness({ outcome: err(childFailed) });
    const boot = h.run(() => stopped);
    await h.whenSpawned;
    stopped = true;
    h.release();
    const outcome = await boot;
    expect(outcome.kind === 'err' && outcome.error).toMatchObject({
      code: 'stopped',
      message: 'The supervisor was stopped while the pack service booted',
    });
    expect(h.events.map((event) => event.kind)).toEqual(['child-spawned']);
    expect(h.kills).toEqual([]);
  });

  it('kills a child that listened after a stop, rather than letting it serve', async () => {
    let stopped = false;
    const h = harness();
    const boot = h.run(() => stopped);
    await h.whenSpawned;
    stopped = true;
    h.release();
    const outcome = await boot;
    expect(outcome.kind === 'err' && outcome.error.code).toBe('stopped');
    expect(h.kills).toEqual(['SIGKILL']);
    expect(h.tracked).toEqual(['began 42', 'ended 42']);
  });

  it('is spawn-failed, not a rejection, when env() throws, and spawns nothing', async () => {
    const h = harness();
    h.options.env = () => {
      throw new Error('vault unreachable');
    };
    const outcome = await h.run();
    expect(outcome).toEqual(
      err({
        code: 'spawn-failed',
        message: 'The pack service could not be started: vault unreachable',
        problems: [],
        exitCode: null,
        signal: null,
        output: [],
      }),
    );
    expect(h.spawned).toEqual([]);
    expect(h.events).toEqual([]);
  });

  it('is spawn-failed when the spawn itself throws at once', async () => {
    const h = harness();
    const outcome = await bootChild(
      {
        options: h.options,
        token,
        emit: () => undefined,
        began: () => undefined,
        ended: () => undefined,
        spawn: () => {
          throw new TypeError('The argument "file" cannot be empty');
        },
      },
      { indexPath: '/i.json', reason: 'start', stale: () => false },
    );
    expect(outcome.kind === 'err' && outcome.error).toMatchObject({
      code: 'spawn-failed',
      message: 'The pack service could not be started: The argument "file" cannot be empty',
    });
  });
});
