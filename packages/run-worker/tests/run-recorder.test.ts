import { createInMemoryRunStore } from '@kindgi/testing';
import { describe, expect, it } from 'vitest';
import { RunRecorder } from '../src/run-recorder.js';
import { failingWhile, queuedRun, recordingLogger } from './helpers.js';

const JOB = { packId: 'pack-demo', requestId: 'req-1', guardrails: [] };
const LIMITS = { maxQueued: 10 };

describe('RunRecorder', () => {
  it('holds an outcome through a store outage and records it once the store is back, logging the episode once', async () => {
    const memory = createInMemoryRunStore();
    let failures = 3;
    const runStore = failingWhile(memory, 'finish', () => failures-- > 0);
    const run = queuedRun('run-1');
    expect((await memory.enqueue(run, JOB, LIMITS)).kind).toBe('ok');
    const claimed = await memory.claim({ owner: 'me', leaseMs: 30_000, busyPacks: [] });
    expect(claimed.kind === 'ok' && claimed.value?.run.runId).toBe('run-1');
    const logger = recordingLogger();
    let storeFailures = 0;
    const recorder = new RunRecorder({
      runStore,
      logger,
      retryMs: 60_000,
      leaseMs: 30,
      onStoreFailure: () => storeFailures++,
    });
    await recorder.finish(run, { status: 'completed', output: 'done' }, 'me');
    expect(storeFailures).toBe(3);
    expect(await memory.get('t1', 'run-1')).toMatchObject({ kind: 'ok', value: { status: 'completed' } });
    expect(logger.lines).toEqual([
      { level: 'warn', message: 'recording run outcomes is failing: holding them in memory and retrying' },
      { level: 'warn', message: 'recorded the held outcomes once the run store was back' },
    ]);
  });

  it('takes a lost lease as the answer, silently: a cancel or sweep ended the run', async () => {
    const memory = createInMemoryRunStore();
    const run = queuedRun('run-2');
    await memory.enqueue(run, JOB, LIMITS);
    await memory.claim({ owner: 'me', leaseMs: 30_000, busyPacks: [] });
    await memory.finish('t1', 'run-2', { status: 'cancelled' });
    const logger = recordingLogger();
    const recorder = new RunRecorder({
      runStore: memory,
      logger,
      retryMs: 60_000,
      leaseMs: 30,
      onStoreFailure: () => {},
    });
    await recorder.finish(run, { status: 'completed', output: 'late' }, 'me');
    expect(await memory.get('t1', 'run-2')).toMatchObject({ kind: 'ok', value: { status: 'cancelled' } });
    expect(logger.lines).toEqual([]);
  });
});
