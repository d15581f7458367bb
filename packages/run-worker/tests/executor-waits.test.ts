import { callerOfBindings } from '@kindgi/bindings';
import { createInMemoryRunStore, createScriptedRunHandler } from '@kindgi/testing';
import { describe, expect, it } from 'vitest';
import { RunExecutor, type StartRunInput } from '../src/index.js';
import { describeFailure, recordingLogger } from './helpers.js';
import { watchedStore } from './watched-store.js';

const HOUR = 3_600_000;

/** An executor over a store whose reads are counted; no poll within a test, so only notices wake a waiter. */
function executorOver(tools: Parameters<typeof createScriptedRunHandler>[0]) {
  const store = createInMemoryRunStore();
  const watched = watchedStore(store);
  const executor = new RunExecutor({
    runStore: watched.runStore,
    callPack: callerOfBindings(createScriptedRunHandler(tools), undefined),
    checks: false,
    describeFailure,
    logger: recordingLogger(),
    now: () => new Date(),
    options: { pollMs: HOUR },
  });
  return { executor, watched };
}

const runOf = (toolId: string): StartRunInput => ({
  tenantId: 't1',
  requestId: 'req-1',
  toolId,
  packId: 'pack-demo',
  input: { n: 1 },
  guardrails: [],
  wait: true,
});

describe('RunExecutor: waiting for a run started with wait', () => {
  it('hands a run it executed to its waiter without reading it back', async () => {
    const { executor, watched } = executorOver({ echo: (input) => input });
    const started = await executor.start(runOf('echo'));
    if (started.kind === 'err') throw new Error(started.error.message);
    expect(await started.value.done()).toMatchObject({ kind: 'ok', value: { status: 'completed', output: { n: 1 } } });
    expect(watched.reads()).toBe(0);
    await executor.drain(0);
  });

  it('still ends the waiter with a cancel of the run it is executing', async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let entered = () => {};
    const running = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const { executor } = executorOver({
      slow: async (input) => {
        entered();
        await held;
        return input;
      },
    });
    const started = await executor.start(runOf('slow'));
    if (started.kind === 'err') throw new Error(started.error.message);
    const { runId } = started.value.run;
    await running;
    expect(await executor.cancel('t1', runId)).toMatchObject({ kind: 'ok' });
    release();
    expect(await started.value.done()).toMatchObject({ kind: 'ok', value: { status: 'cancelled' } });
    await executor.drain(0);
  });
});
