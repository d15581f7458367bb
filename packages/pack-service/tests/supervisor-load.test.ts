import { setTimeout as wait } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { createPackServiceClient, type PackServiceClient } from '../src/client/client.js';
import { createPackServiceSupervisor } from '../src/supervisor/supervisor.js';
import { packDir, recorder, scratch, serviceCommand, writeIndex } from './supervisor-helpers.js';

const RATE_PER_SECOND = 200;
const SECONDS = 10;
/** The least number of calls: the rate held for the whole run. */
const CALLS = RATE_PER_SECOND * SECONDS;
const SWAPS = 5;
/** A 503 means the call did not run (no child was serving for a moment): the caller retries it. */
const MAX_ATTEMPTS = 50;

type Outcome = { kind: 'result'; pid: number; attempts: number } | { kind: '502' } | { kind: 'wrong'; detail: string };

async function oneCall(client: PackServiceClient, i: number, unavailable: Map<string, number>): Promise<Outcome> {
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const reply = await client.invoke({
      tool: 'supervisor-test.echo',
      input: { message: `call-${i}`, delayMs: 20 },
      ctx: { tenantId: 'load', runId: `run-${i}` },
    });
    if (reply.kind === 'ok') {
      const message = reply.value;
      if (message.kind === 'result') {
        const output = message.output as { message: string; pid: number };
        if (output.message === `call-${i}`) return { kind: 'result', pid: output.pid, attempts: attempt };
      }
      return { kind: 'wrong', detail: JSON.stringify(message) };
    }
    if (reply.error.status === 502) return { kind: '502' };
    if (reply.error.code !== 'pack-unavailable') return { kind: 'wrong', detail: JSON.stringify(reply.error) };
    unavailable.set(reply.error.message, (unavailable.get(reply.error.message) ?? 0) + 1);
    await wait(Math.min(reply.error.retryAfterMs ?? 100, 100));
  }
  return { kind: 'wrong', detail: `still unavailable after ${MAX_ATTEMPTS} attempts` };
}

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Runs the load with five swaps (and, when `kill`, one SIGKILL between the third and the fourth). */
async function runLoad(kill: boolean, seconds: number) {
  const tmp = scratch();
  const log = recorder();
  const supervisor = createPackServiceSupervisor({
    command: serviceCommand(),
    moduleRoot: packDir,
    // A shared CI machine can stall a child for a moment; a higher cap keeps its own 503 `overloaded`
    // (admission control, not the supervisor) out of the counts.
    env: () => ({ PATH: process.env.PATH ?? '', KINDGI_PACK_SERVICE_MAX_CONCURRENCY: '512' }),
    onEvent: log.onEvent,
    restartBackoff: { initialMs: 50 },
  });
  cleanups.push(tmp.dispose, () => supervisor.close());
  const front = await supervisor.listen();
  const client = createPackServiceClient(front);
  cleanups.push(() => client.close());
  const first = await supervisor.start(writeIndex(tmp.dir, 'v0'));
  expect(first.kind).toBe('ok');

  // The load: calls launched on a fixed schedule (late ticks launch what is due, never fewer), for at
  // least SECONDS and until the disturbances are over plus one more second, so the last child serves too.
  const calls: Promise<Outcome>[] = [];
  // Why calls were refused with 503 (and retried), by reason.
  const unavailable = new Map<string, number>();
  let disturbedUntil: number | undefined;
  const load = (async () => {
    const began = Date.now();
    for (;;) {
      const now = Date.now();
      const elapsed = now - began;
      if (elapsed >= seconds * 1000 && disturbedUntil !== undefined && now >= disturbedUntil + 1000) break;
      const due = Math.floor((elapsed * RATE_PER_SECOND) / 1000) + 1;
      while (calls.length < due) calls.push(oneCall(client, calls.length, unavailable));
      await wait(5);
    }
  })();

  // The disturbances, spread over the run: five swaps, and one SIGKILL between the third and the fourth.
  const swapResults: string[] = [];
  let killed = 0;
  const interval = (seconds * 1000) / (SWAPS + 2);
  for (let swap = 1; swap <= SWAPS; swap++) {
    await wait(interval);
    const outcome = await supervisor.start(writeIndex(tmp.dir, `v${swap}`));
    swapResults.push(outcome.kind);
    if (kill && swap === 3) {
      await wait(interval / 2);
      const pid = supervisor.servingPid;
      if (pid !== undefined) {
        const mark = log.events.length;
        process.kill(pid, 'SIGKILL');
        killed = pid;
        await log.event('child-serving', () => true, mark);
      }
    }
  }
  disturbedUntil = Date.now();
  await load;
  const outcomes = await Promise.all(calls);

  const results = outcomes.filter((o): o is Extract<Outcome, { kind: 'result' }> => o.kind === 'result');
  const badGateway = outcomes.filter((o) => o.kind === '502').length;
  const wrong = outcomes.filter((o): o is Extract<Outcome, { kind: 'wrong' }> => o.kind === 'wrong');
  const retried = results.filter((o) => o.attempts > 1).length;
  const servedBy = new Set(results.map((o) => o.pid));
  const killedServed = results.filter((o) => o.pid === killed).length;
  const report = {
    kill,
    calls: outcomes.length,
    results: results.length,
    badGateway,
    retried,
    children: servedBy.size,
    unavailable: Object.fromEntries(unavailable),
  };
  console.info(`supervisor load: ${JSON.stringify(report)}`);
  return { outcomes, results, badGateway, wrong, servedBy, swapResults, killed, killedServed, unavailable };
}

describe('supervisor: reliability under load', () => {
  it(`loses no call at ${RATE_PER_SECOND}/s for ${SECONDS}s across ${SWAPS} swaps and one SIGKILL`, async () => {
    const run = await runLoad(true, SECONDS);
    expect(run.swapResults).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
    expect(run.killed).toBeGreaterThan(0);
    expect(run.wrong.map((o) => o.detail)).toEqual([]);
    expect(run.outcomes.length).toBeGreaterThanOrEqual(CALLS);
    // Every call ended in its own result, or in a 502 (it was running on the killed child).
    expect(run.results.length + run.badGateway).toBe(run.outcomes.length);
    // Six code versions plus the restart after the kill served calls.
    expect(run.servedBy.size).toBe(SWAPS + 2);
    expect(run.killedServed + run.badGateway).toBeGreaterThan(0);
  }, 180_000);

  it(`answers every call with its result across ${SWAPS} swaps alone (no 502)`, async () => {
    const run = await runLoad(false, SECONDS / 2);
    expect(run.swapResults).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
    expect(run.wrong.map((o) => o.detail)).toEqual([]);
    expect(run.badGateway).toBe(0);
    // A swap never leaves the front without a serving child.
    expect(run.unavailable.get('Pack service unavailable: no pack service')).toBeUndefined();
    expect(run.results.length).toBe(run.outcomes.length);
    expect(run.servedBy.size).toBe(SWAPS + 1);
  }, 180_000);
});
