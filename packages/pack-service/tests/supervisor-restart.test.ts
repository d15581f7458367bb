import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createPackServiceSupervisor } from '../src/supervisor/supervisor.js';
import { packDir, recorder, scratch, serviceCommand, writeIndex } from './supervisor-helpers.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('supervisor: restarts', () => {
  it('restarts a crashed child with growing delays while restarts fail, until one boots', async () => {
    const tmp = scratch();
    const log = recorder();
    const supervisor = createPackServiceSupervisor({
      command: serviceCommand(),
      moduleRoot: packDir,
      env: () => ({ PATH: process.env.PATH ?? '' }),
      onEvent: log.onEvent,
      restartBackoff: { initialMs: 20, factor: 3, maxMs: 500 },
    });
    cleanups.push(tmp.dispose, () => supervisor.close());
    await supervisor.listen();
    const indexPath = join(tmp.dir, 'index.json');
    copyFileSync(writeIndex(tmp.dir, 'good'), indexPath);
    const started = await supervisor.start(indexPath);
    if (started.kind !== 'ok') throw new Error(started.error.message);

    // The code on disk breaks, then the child crashes: each restart fails until the code is fixed.
    copyFileSync(writeIndex(tmp.dir, 'broken', { broken: true }), indexPath);
    process.kill(started.value.pid, 'SIGKILL');
    await log.event('restart-scheduled', (event) => event.attempt === 3);
    copyFileSync(writeIndex(tmp.dir, 'fixed'), indexPath);
    const serving = await log.event('child-serving', (event) => event.pid !== started.value.pid);

    const delays = log.events.flatMap((event) => (event.kind === 'restart-scheduled' ? [event.delayMs] : []));
    expect(delays.slice(0, 3)).toEqual([20, 60, 180]);
    expect(delays.every((delay) => delay <= 500)).toBe(true);
    expect(log.events.filter((event) => event.kind === 'boot-failed').length).toBeGreaterThanOrEqual(2);
    expect(supervisor.servingPid).toBe(serving.pid);
  });

  it('does not restart a child that a newer start() replaced, nor after stop()', async () => {
    const tmp = scratch();
    const log = recorder();
    const supervisor = createPackServiceSupervisor({
      command: serviceCommand(),
      moduleRoot: packDir,
      env: () => ({ PATH: process.env.PATH ?? '' }),
      onEvent: log.onEvent,
    });
    cleanups.push(tmp.dispose, () => supervisor.close());
    const first = await supervisor.start(writeIndex(tmp.dir, 'one'));
    if (first.kind !== 'ok') throw new Error(first.error.message);
    await supervisor.start(writeIndex(tmp.dir, 'two'));
    await log.event('child-exited', (event) => event.pid === first.value.pid);
    await supervisor.stop();
    expect(log.events.filter((event) => event.kind === 'restart-scheduled')).toEqual([]);
    expect(log.events.filter((event) => event.kind === 'child-exited').every((event) => event.expected)).toBe(true);
  });
});
