import { callerOfBindings, type RunCheckBinding, type RunHandlerBinding, type RunStore } from '@kindgi/bindings';
import {
  createInMemoryRunStore,
  createScriptedRunCheck,
  createScriptedRunHandler,
  scriptedReply,
} from '@kindgi/testing';
import { describe, expect, it } from 'vitest';
import { type RunExecutionOptions, RunExecutor, type StartRunInput } from '../src/index.js';
import { describeFailure, failingWhile, guardrail, queuedRun, recordingLogger } from './helpers.js';

function executorOver(
  bindings: { runHandler: RunHandlerBinding; runCheck?: RunCheckBinding; runStore?: RunStore },
  options: Partial<RunExecutionOptions> = {},
) {
  const runStore = bindings.runStore ?? createInMemoryRunStore();
  const logger = recordingLogger();
  const executor = new RunExecutor({
    runStore,
    callPack: callerOfBindings(bindings.runHandler, bindings.runCheck),
    checks: bindings.runCheck !== undefined,
    describeFailure,
    logger,
    now: () => new Date(),
    options: { pollMs: 20, ...options },
  });
  return { executor, runStore, logger };
}

function runOf(toolId: string, more: Partial<StartRunInput> = {}): StartRunInput {
  return { tenantId: 't1', requestId: 'req-1', toolId, packId: 'pack-demo', input: { n: 1 }, guardrails: [], ...more };
}

/** Starts the run and waits for its end; both must succeed. */
async function runToEnd(executor: RunExecutor, input: StartRunInput) {
  const started = await executor.start(input);
  if (started.kind === 'err') throw new Error(started.error.message);
  const ended = await started.value.done();
  if (ended.kind === 'err') throw new Error(ended.error.message);
  return ended.value;
}

const tools = createScriptedRunHandler({
  echo: (input) => input,
  throws: () => {
    throw new TypeError('boom');
  },
});

describe('RunExecutor', () => {
  it('executes a queued run and records its output', async () => {
    const { executor } = executorOver({ runHandler: tools });
    expect(await runToEnd(executor, runOf('echo'))).toMatchObject({ status: 'completed', output: { n: 1 } });
    await executor.drain(0);
  });

  it('records a failed call as describeFailure names it', async () => {
    const { executor } = executorOver({ runHandler: tools });
    const run = await runToEnd(executor, runOf('throws'));
    expect(run).toMatchObject({ status: 'failed', error: { code: 'pack:handler-throw' } });
    await executor.drain(0);
  });

  it('answers a full queue with a run-queue-full result, not a throw', async () => {
    // No concurrency: nothing is claimed, so the queue stays full.
    const { executor } = executorOver({ runHandler: tools }, { concurrencyPerPack: 0, maxQueuedPerPack: 1 });
    expect((await executor.start(runOf('echo'))).kind).toBe('ok');
    const refused = await executor.start(runOf('echo'));
    expect(refused).toMatchObject({ kind: 'err', error: { code: 'run-queue-full' } });
    await executor.drain(0);
  });

  it('answers cancels and waits for unknown or finished runs with the store’s refusals', async () => {
    const { executor } = executorOver({ runHandler: tools }, { concurrencyPerPack: 0 });
    expect(await executor.cancel('t1', 'run-none')).toMatchObject({ kind: 'err', error: { code: 'run-not-found' } });
    expect(await executor.waitForEnd('t1', 'run-none')).toMatchObject({
      kind: 'err',
      error: { code: 'run-not-found', runId: 'run-none' },
    });
    const started = await executor.start(runOf('echo'));
    if (started.kind === 'err') throw new Error(started.error.message);
    const { runId } = started.value.run;
    expect(await executor.cancel('t1', runId)).toMatchObject({ kind: 'ok', value: { status: 'cancelled' } });
    expect(await executor.cancel('t1', runId)).toMatchObject({ kind: 'err', error: { code: 'run-already-terminal' } });
    await executor.drain(0);
  });

  it('puts a run its pack refused back in the queue, then runs it once', async () => {
    let calls = 0;
    const runHandler = createScriptedRunHandler({
      flaky: (input) => {
        calls++;
        if (calls === 1)
          return scriptedReply({ code: 'pack-unavailable', message: 'busy', status: 503, retryAfterMs: 5 });
        return input;
      },
    });
    const { executor, runStore } = executorOver({ runHandler });
    const run = await runToEnd(executor, runOf('flaky'));
    expect(run.status).toBe('completed');
    expect(calls).toBe(2);
    const events = await runStore.listEvents('t1', run.runId, 0);
    // A requeue is not journaled: a follower sees one start and one end.
    expect(events.kind === 'ok' && events.value.map((e) => e.kind)).toEqual(['run.started', 'run.completed']);
    await executor.drain(0);
  });

  it('fails a run on a halting guardrail, journaling the violation with the described reason', async () => {
    const runCheck = createScriptedRunCheck({ strict: () => ({ passed: false, reason: 'too loud' }) });
    const { executor, runStore } = executorOver({ runHandler: tools, runCheck });
    const guardrails = [guardrail('missing', 'no-such-check', 'log-only'), guardrail('loud', 'strict', 'halt')];
    const run = await runToEnd(executor, runOf('echo', { guardrails }));
    expect(run).toMatchObject({ status: 'failed', error: { code: 'guardrail-violation' } });
    expect(run.output).toBeUndefined();
    expect(run.violations.map((v) => [v.guardrailId, v.reason])).toEqual([
      ['missing', expect.stringMatching(/^The check could not run: pack:check-not-in-pack: /)],
      ['loud', 'too loud'],
    ]);
    const events = await runStore.listEvents('t1', run.runId, 0);
    expect(events.kind === 'ok' && events.value.filter((e) => e.kind === 'guardrail.violation')).toHaveLength(2);
    await executor.drain(0);
  });

  it('claims no agent run without a turn runner: it stays queued for a server that runs agents', async () => {
    const { executor, runStore } = executorOver({ runHandler: tools });
    const agentRun = { ...queuedRun('agent-1'), agentId: 'acme.helper' };
    const agentJob = { packId: 'pack-demo', requestId: 'req-a', guardrails: [], agent: {} };
    expect((await runStore.enqueue(agentRun, agentJob, { maxQueued: 9 })).kind).toBe('ok');
    // The tool run queued after it is claimed and finishes; the agent run is never claimed.
    expect(await runToEnd(executor, runOf('echo'))).toMatchObject({ status: 'completed' });
    expect(await runStore.get('t1', 'agent-1')).toMatchObject({ kind: 'ok', value: { status: 'queued' } });
    await executor.drain(0);
  });

  it('fails a run as internal-server-error when its journal cannot be written', async () => {
    const runCheck = createScriptedRunCheck({ strict: () => ({ passed: false, reason: 'no' }) });
    const runStore = failingWhile(createInMemoryRunStore(), 'appendEvent', () => true);
    const { executor, logger } = executorOver({ runHandler: tools, runCheck, runStore });
    const run = await runToEnd(executor, runOf('echo', { guardrails: [guardrail('g', 'strict', 'log-only')] }));
    expect(run).toMatchObject({ status: 'failed', error: { code: 'internal-server-error' } });
    expect(logger.lines).toContainEqual({ level: 'error', message: 'run failed unexpectedly' });
    await executor.drain(0);
  });

  it('drains: cancels what still runs past the grace, and claims nothing more', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const runHandler = createScriptedRunHandler({
      hold: async (input) => {
        started();
        await held;
        return input;
      },
    });
    const { executor } = executorOver({ runHandler });
    const queued = await executor.start(runOf('hold'));
    if (queued.kind === 'err') throw new Error(queued.error.message);
    await running;
    expect(await executor.drain(0)).toEqual({ finished: 0, cancelled: 1 });
    expect(await queued.value.done()).toMatchObject({ kind: 'ok', value: { status: 'cancelled' } });
    release();
  });
});
