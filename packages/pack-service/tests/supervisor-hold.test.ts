import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createPackServiceClient } from '../src/client/client.js';
import { createPackServiceSupervisor } from '../src/supervisor/supervisor.js';
import type { PackServiceSupervisorOptions } from '../src/supervisor/types.js';
import { packDir, recorder, scratch, serviceCommand, writeIndex } from './supervisor-helpers.js';

const ctx = { tenantId: 't1', runId: 'r1' };
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A command that fails to boot: it ignores its arguments and exits 1 before listening. */
const FAILING = [process.execPath, '-e', 'process.exit(1)', '--'];

/**
 * A supervisor whose command can be held back (`block()` … `unblock()`), so a test decides exactly when a
 * restart or start gets its child, and can swap in a command that fails to boot.
 */
async function setup(options: Partial<PackServiceSupervisorOptions> = {}) {
  const tmp = scratch();
  const log = recorder();
  let gate: Promise<void> | undefined;
  let open: () => void = () => undefined;
  let argv: () => readonly string[] = serviceCommand;
  const supervisor = createPackServiceSupervisor({
    command: async () => {
      if (gate) await gate;
      return argv();
    },
    moduleRoot: packDir,
    env: () => ({ PATH: process.env.PATH ?? '' }),
    onEvent: log.onEvent,
    onLog: log.onLog,
    onOutput: log.onOutput,
    restartBackoff: { initialMs: 20, maxMs: 200 },
    ...options,
  });
  // close() before the gate opens, so a held-back boot finds the supervisor stopped.
  cleanups.push(
    tmp.dispose,
    () => open(),
    () => supervisor.close(),
  );
  const front = await supervisor.listen();
  const client = createPackServiceClient(front);
  cleanups.push(() => client.close());
  const block = (): void => {
    gate = new Promise((resolve) => {
      open = resolve;
    });
  };
  return {
    tmp,
    log,
    supervisor,
    front,
    client,
    block,
    unblock: () => {
      gate = undefined;
      open();
    },
    useCommand: (next: () => readonly string[]) => {
      argv = next;
    },
    /**
     * Starts a child, holds the command back and SIGKILLs the child; resolves once the supervisor has seen it
     * die (its restart is then due, and waits for `unblock()`).
     */
    async crash(version: string): Promise<number> {
      const started = await supervisor.start(writeIndex(tmp.dir, version));
      if (started.kind !== 'ok') throw new Error(started.error.message);
      block();
      process.kill(started.value.pid, 'SIGKILL');
      await log.event('child-exited', (event) => event.pid === started.value.pid);
      return started.value.pid;
    },
  };
}

const echo = (message: string) => ({ tool: 'supervisor-test.echo', input: { message }, ctx });

describe('supervisor: holding calls while a child restarts', () => {
  it('holds calls during a restart and forwards them to the new child; /readyz does not hold', async () => {
    const { log, front, client, unblock, crash } = await setup();
    const crashed = await crash('held');
    const invoke = client.invoke(echo('held'));
    const info = client.info();
    await log.event('call-held', (event) => event.held === 2);
    const readyz = await fetch(new URL('/readyz', front.url));
    expect(readyz.status).toBe(503);
    expect(readyz.headers.get('retry-after')).toBe('1');

    unblock();
    const serving = await log.event('child-serving', (event) => event.pid !== crashed);
    expect(await invoke).toEqual({
      kind: 'ok',
      value: { v: 2, kind: 'result', output: { message: 'held', pid: serving.pid } },
    });
    expect(await info).toMatchObject({ kind: 'ok', value: { artifactVersion: 'held' } });
    const released = log.events.filter((event) => event.kind === 'call-released');
    expect(released.map((event) => event.kind === 'call-released' && event.outcome)).toEqual([
      'forwarded',
      'forwarded',
    ]);
  });

  it('holds a call that arrives while the first start() boots', async () => {
    const { tmp, log, supervisor, client, block, unblock } = await setup();
    block();
    const starting = supervisor.start(writeIndex(tmp.dir, 'first'));
    const call = client.invoke(echo('early'));
    await log.event('call-held');
    unblock();
    const started = await starting;
    if (started.kind !== 'ok') throw new Error(started.error.message);
    expect(await call).toMatchObject({ kind: 'ok', value: { output: { message: 'early', pid: started.value.pid } } });
  });

  it('answers 503 at once during a restart with holdWhileRestartingMs: 0', async () => {
    const { log, client, crash } = await setup({ holdWhileRestartingMs: 0 });
    await crash('no-hold');
    const reply = await client.invoke(echo('refused'));
    expect(reply).toMatchObject({ kind: 'err', error: { code: 'pack-unavailable', status: 503, retryAfterMs: 1000 } });
    expect(log.events.some((event) => event.kind === 'call-held')).toBe(false);
  });

  it('answers held calls 503 at stop(), and new calls 503 at once after it', async () => {
    const { log, supervisor, client, crash } = await setup();
    await crash('stop');
    const held = client.invoke(echo('held at stop'));
    await log.event('call-held');
    await supervisor.stop();
    expect(await held).toMatchObject({ kind: 'err', error: { code: 'pack-unavailable', status: 503 } });
    expect(log.events.find((event) => event.kind === 'call-released')).toMatchObject({
      outcome: 'unavailable',
      reason: 'not-running',
    });
    const after = await client.invoke(echo('after stop'));
    expect(after).toMatchObject({ kind: 'err', error: { code: 'pack-unavailable', status: 503 } });
    expect(log.events.filter((event) => event.kind === 'call-held').length).toBe(1);
  });

  it('drops a held call whose caller disconnects: its handler never runs', async () => {
    const { tmp, log, client, unblock, crash } = await setup();
    const runs = join(tmp.dir, 'count-runs');
    const crashed = await crash('left');
    const abort = new AbortController();
    const gone = client.invoke({
      tool: 'supervisor-test.count',
      input: { path: runs, tag: 'gone' },
      ctx,
      signal: abort.signal,
    });
    await log.event('call-held');
    abort.abort();
    expect(await gone).toMatchObject({ kind: 'err', error: { code: 'pack-call-aborted' } });
    await log.event('call-released', (event) => event.outcome === 'caller-left');

    unblock();
    const serving = await log.event('child-serving', (event) => event.pid !== crashed);
    const kept = await client.invoke({ tool: 'supervisor-test.count', input: { path: runs, tag: 'kept' }, ctx });
    expect(kept).toMatchObject({ kind: 'ok', value: { output: { runs: ['kept'], pid: serving.pid } } });
    expect(readFileSync(runs, 'utf8')).toBe('kept\n');
    const isCount = (record: { kind: string; record: Record<string, unknown> }) =>
      record.kind === 'call' && record.record.id === 'supervisor-test.count';
    await log.record(isCount);
    expect(log.records.filter(isCount).length).toBe(1);
  });

  it('answers held calls 503 when the restart fails to boot, and refuses at once until a child serves', async () => {
    const { log, client, unblock, useCommand, crash } = await setup();
    const crashed = await crash('fails');
    const held = client.invoke(echo('held'));
    await log.event('call-held');
    useCommand(() => FAILING);
    unblock();
    expect(await held).toMatchObject({ kind: 'err', error: { code: 'pack-unavailable', status: 503 } });
    expect(log.events.find((event) => event.kind === 'call-released')).toMatchObject({
      outcome: 'unavailable',
      reason: 'boot-failed',
    });
    // Restarts go on with backoff, but while they fail nothing is coming: no hold.
    const refused = await client.invoke(echo('refused'));
    expect(refused).toMatchObject({ kind: 'err', error: { code: 'pack-unavailable', status: 503 } });
    expect(log.events.filter((event) => event.kind === 'call-held').length).toBe(1);

    useCommand(serviceCommand);
    const serving = await log.event('child-serving', (event) => event.pid !== crashed);
    expect(await client.invoke(echo('back'))).toMatchObject({
      kind: 'ok',
      value: { output: { message: 'back', pid: serving.pid } },
    });
  });

  it('answers 503 when the hold passes holdWhileRestartingMs, or the call’s own smaller deadline', async () => {
    const { log, client, crash } = await setup({ holdWhileRestartingMs: 150 });
    await crash('bound');
    // The restart never gets its command: only the bound can end these holds.
    const bounded = await client.invoke(echo('bounded'));
    expect(bounded).toMatchObject({ kind: 'err', error: { code: 'pack-unavailable', status: 503 } });
    const deadline = await client.invoke({ ...echo('deadline'), deadlineMs: 50 });
    expect(deadline).toMatchObject({ kind: 'err', error: { code: 'pack-unavailable', status: 503 } });
    const released = log.events.filter((event) => event.kind === 'call-released');
    expect(released).toMatchObject([
      { outcome: 'unavailable', reason: 'hold-timeout' },
      { outcome: 'unavailable', reason: 'hold-timeout' },
    ]);
  });

  it('refuses a call beyond maxHeldCalls at once, and still serves the held one', async () => {
    const { log, client, unblock, crash } = await setup({ maxHeldCalls: 1 });
    const crashed = await crash('full');
    const first = client.invoke(echo('first'));
    await log.event('call-held');
    const second = await client.invoke(echo('second'));
    expect(second).toMatchObject({ kind: 'err', error: { code: 'pack-unavailable', status: 503 } });
    expect(log.events.find((event) => event.kind === 'call-refused')).toEqual({
      kind: 'call-refused',
      reason: 'hold-full',
      held: 1,
    });
    unblock();
    const serving = await log.event('child-serving', (event) => event.pid !== crashed);
    expect(await first).toMatchObject({ kind: 'ok', value: { output: { message: 'first', pid: serving.pid } } });
  });

  it('rejects a negative or non-finite hold option', () => {
    const make = (options: Partial<PackServiceSupervisorOptions>) => () =>
      createPackServiceSupervisor({ command: ['x'], moduleRoot: '.', env: () => ({}), ...options });
    expect(make({ holdWhileRestartingMs: -1 })).toThrow(/holdWhileRestartingMs/);
    expect(make({ maxHeldCalls: Number.NaN })).toThrow(/maxHeldCalls/);
  });
});
