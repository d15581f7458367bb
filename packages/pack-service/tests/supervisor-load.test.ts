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

/** Each call is made once, never retried: a 503 counts as wrong, since the front holds calls through a restart. */
type Outcome =
  | { kind: 'result'; index: number; pid: number }
  | { kind: '502'; index: number }
  | { kind: 'wrong'; index: number; detail: string };

async function oneCall(
  client: PackServiceClient,
  index: number,
  unavailable: Map<string, number>,
  servedBy: Set<number>,
): Promise<Outcome> {
  const reply = await client.invoke({
    tool: 'supervisor-test.echo',
    input: { message: `call-${index}`, delayMs: 20 },
    ctx: { tenantId: 'load', runId: `run-${index}` },
  });
  if (reply.kind === 'ok') {
    const message = reply.value;
    if (message.kind === 'result') {
      const output = message.output as { message: string; pid: number };
      if (output.message === `call-${index}`) {
        servedBy.add(output.pid);
        return { kind: 'result', index, pid: output.pid };
      }
    }
    return { kind: 'wrong', index, detail: JSON.stringify(message) };
  }
  if (reply.error.status === 502) return { kind: '502', index };
  if (reply.error.code === 'pack-unavailable') {
    unavailable.set(reply.error.message, (unavailable.get(reply.error.message) ?? 0) + 1);
  }
  return { kind: 'wrong', index, detail: JSON.stringify(reply.error) };
}

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Runs the load with five swaps (and, when `kill`, one SIGKILL between the third and the fourth). */
async function runLoad(kill: boolean, seconds: number) {
  const calls: Promise<Outcome>[] = [];
  const swapResults: string[] = [];
  let killed = 0;
  let launchedAtExit: number | undefined;
  const tmp = scratch();
  const log = recorder();
  const supervisor = createPackServiceSupervisor({
    command: serviceCommand(),
    moduleRoot: packDir,
    // A shared CI machine can stall a child for a moment; a higher cap keeps its own 503 `overloaded`
    // (admission control, not the supervisor) out of the counts.
    env: () => ({ PATH: process.env.PATH ?? '', KINDGI_PACK_SERVICE_MAX_CONCURRENCY: '512' }),
    onEvent: (event) => {
      // How many calls had been launched when the killed child's death was noticed: a call launched later
      // never reached that child, so it must not end in a 502.
      if (event.kind === 'child-exited' && event.pid === killed) launchedAtExit = calls.length;
      log.onEvent(event);
    },
    restartBackoff: { initialMs: 50 },
  });
  cleanups.push(tmp.dispose, () => supervisor.close());
  const front = await supervisor.listen();
  const client = createPackServiceClient(front);
  cleanups.push(() => client.close());
  const first = await supervisor.start(writeIndex(tmp.dir, 'v0'));
  expect(first.kind).toBe('ok');

  // The load: calls launched on a fixed schedule (late ticks launch what is due, never fewer), for at least
  // SECONDS and until the disturbances are over plus one more second, so the last child serves too. The
  // front's default hold (10 s) covers the restart after the kill.
  // Why calls were refused with 503, by reason (there should be none).
  const unavailable = new Map<string, number>();
  let disturbedUntil: number | undefined;
  // Which children have answered a call so far. Each disturbance waits for the new child's first answer, so
  // every child serves calls however slowly a loaded machine runs the load loop.
  const answeredBy = new Set<number>();
  const untilAnsweredBy = async (pid: number | undefined) => {
    while (pid !== undefined && !answeredBy.has(pid)) await wait(5);
  };
  const load = (async () => {
    const began = Date.now();
    for (;;) {
      const now = Date.now();
      const elapsed = now - began;
      if (elapsed >= seconds * 1000 && disturbedUntil !== undefined && now >= disturbedUntil + 1000) break;
      const due = Math.floor((elapsed * RATE_PER_SECOND) / 1000) + 1;
      while (calls.length < due) calls.push(oneCall(client, calls.length, unavailable, answeredBy));
      await wait(5);
    }
  })();

  // The disturbances, spread over the run: five swaps, and one SIGKILL between the third and the fourth.
  const interval = (seconds * 1000) / (SWAPS + 2);
  for (let swap = 1; swap <= SWAPS; swap++) {
    await wait(interval);
    const outcome = await supervisor.start(writeIndex(tmp.dir, `v${swap}`));
    // The message, not just the kind, so a failed swap says why.
    swapResults.push(outcome.kind === 'ok' ? 'ok' : `${outcome.error.code}: ${outcome.error.message}`);
    if (outcome.kind === 'ok') await untilAnsweredBy(outcome.value.pid);
    if (kill && swap === 3) {
      await wait(interval / 2);
      const pid = supervisor.servingPid;
      if (pid !== undefined) {
        const mark = log.events.length;
        process.kill(pid, 'SIGKILL');
        killed = pid;
        const restarted = await log.event('child-serving', () => true, mark);
        await untilAnsweredBy(restarted.pid);
      }
    }
  }
  disturbedUntil = Date.now();
  await load;
  const outcomes = await Promise.all(calls);

  const results = outcomes.filter((o): o is Extract<Outcome, { kind: 'result' }> => o.kind === 'result');
  const badGateway = outcomes.filter((o) => o.kind === '502').length;
  const wrong = outcomes.filter((o): o is Extract<Outcome, { kind: 'wrong' }> => o.kind === 'wrong');
  const holds = log.events.flatMap((event) => (event.kind === 'call-held' ? [event.held] : []));
  const held = holds.length;
  const servedBy = new Set(results.map((o) => o.pid));
  const killedServed = results.filter((o) => o.pid === killed).length;
  const report = {
    kill,
    calls: outcomes.length,
    results: results.length,
    badGateway,
    unavailable: Object.fromEntries(unavailable),
    held,
    mostHeldAtOnce: Math.max(0, ...holds),
    children: servedBy.size,
  };
  console.info(`supervisor load: ${JSON.stringify(report)}`);
  const lateBadGateway = outcomes.filter(
    (o) => o.kind === '502' && (launchedAtExit === undefined || o.index >= launchedAtExit),
  ).length;
  return {
    outcomes,
    results,
    badGateway,
    lateBadGateway,
    wrong,
    servedBy,
    swapResults,
    killed,
    killedServed,
    unavailable,
    held,
  };
}

describe('supervisor: reliability under load', () => {
  it(`loses no call at ${RATE_PER_SECOND}/s for ${SECONDS}s across ${SWAPS} swaps and one SIGKILL`, async () => {
    const run = await runLoad(true, SECONDS);
    expect(run.swapResults).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
    expect(run.killed).toBeGreaterThan(0);
    // No call was refused (503) or answered wrongly, and none was retried: the front held calls through the restart.
    expect(run.unavailable.size).toBe(0);
    expect(run.wrong.map((o) => o.detail)).toEqual([]);
    expect(run.outcomes.length).toBeGreaterThanOrEqual(CALLS);
    // Every call ended in its own result, or in a 502 (it was running on the killed child).
    expect(run.results.length + run.badGateway).toBe(run.outcomes.length);
    expect(run.lateBadGateway).toBe(0);
    // Six code versions plus the restart after the kill served calls.
    expect(run.servedBy.size).toBe(SWAPS + 2);
    expect(run.killedServed + run.badGateway).toBeGreaterThan(0);
  }, 180_000);

  it(`answers every call with its result across ${SWAPS} swaps alone (no 502)`, async () => {
    const run = await runLoad(false, SECONDS / 2);
    expect(run.swapResults).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
    expect(run.wrong.map((o) => o.detail)).toEqual([]);
    expect(run.badGateway).toBe(0);
    // A swap never leaves the front without a serving child: no 503, and no call ever had to be held.
    expect(run.unavailable.size).toBe(0);
    expect(run.held).toBe(0);
    expect(run.results.length).toBe(run.outcomes.length);
    expect(run.servedBy.size).toBe(SWAPS + 1);
  }, 180_000);
});
