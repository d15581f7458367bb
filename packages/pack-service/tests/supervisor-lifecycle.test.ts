import { describe, expect, it } from 'vitest';
import type { FrontState } from '../src/supervisor/hold.js';
import {
  createSupervisorLifecycle,
  type RestartDue,
  STABLE_MS,
  type StartSettled,
  type StartTicket,
  type SupervisorLifecycle,
} from '../src/supervisor/lifecycle.js';

/** One lifecycle driven by a table row, with the tickets and restarts its steps handed out. */
interface Run {
  life: SupervisorLifecycle<string>;
  tickets: StartTicket[];
  restarts: RestartDue[];
  /** What the latest step returned. */
  last: unknown;
}
type Step = (run: Run) => void;

const target = (child: string) => ({ url: `http://127.0.0.1/${child}`, token: 't' });

// The transitions, as the supervisor makes them.
const start: Step = (run) => {
  run.tickets.push(run.life.startAsked());
};
/** Settles the oldest unsettled start. */
const settle =
  (how: StartSettled): Step =>
  (run) => {
    const ticket = run.tickets.shift();
    if (!ticket) throw new Error('no start to settle');
    run.life.startSettled(ticket, how);
  };
const boot =
  (child: string): Step =>
  (run) =>
    run.life.bootBegan(child);
const booted =
  (child: string): Step =>
  (run) =>
    run.life.bootEnded(child);
const serve =
  (child: string, now = 0): Step =>
  (run) => {
    run.last = run.life.childServing(child, target(child), now);
  };
const exit =
  (child: string, now = 0): Step =>
  (run) => {
    run.last = run.life.childExited(child, now);
  };
const schedule: Step = (run) => {
  const due = run.life.restartScheduled();
  if (due) run.restarts.push(due);
  run.last = due;
};
/** The latest scheduled restart's timer fires. */
const fire: Step = (run) => run.life.restartFired(latest(run).epoch);
const moot: Step = (run) => {
  run.last = run.life.restartMoot(latest(run).epoch);
};
const restartFailed: Step = (run) => {
  run.last = run.life.restartFailed(latest(run).epoch);
};
/** Settles the restart scheduled `back` restarts before the latest. */
const restartSettled =
  (back = 0): Step =>
  (run) =>
    run.life.restartSettled(latest(run, back).epoch);
const stop: Step = (run) => {
  run.last = run.life.stopped();
};

function latest(run: Run, back = 0): RestartDue {
  const due = run.restarts[run.restarts.length - 1 - back];
  if (!due) throw new Error('no restart scheduled');
  return due;
}

function front(state: FrontState): string {
  if (state.kind === 'serving') return `serving ${state.target.url.split('/').pop()}`;
  return state.kind === 'unavailable' ? `unavailable: ${state.reason}` : 'expected';
}

function drive(steps: Step[]): Run {
  const run: Run = { life: createSupervisorLifecycle<string>(), tickets: [], restarts: [], last: undefined };
  for (const step of steps) step(run);
  return run;
}

// A child `a` that serves, then crashes at 1 ms (well before it counts as stable).
const crashed: Step[] = [start, serve('a'), settle('served'), exit('a', 1)];

interface Row {
  name: string;
  steps: Step[];
  front: string;
  /** What the last step returned, when it returns something. */
  last?: unknown;
  attempt?: number;
  bootFailed?: boolean;
  restartPending?: boolean;
}

const rows: Row[] = [
  { name: 'never started: not running', steps: [], front: 'unavailable: not-running' },
  { name: 'a start boots with nothing serving: calls are held', steps: [start, boot('a')], front: 'expected' },
  {
    name: 'the start serves',
    steps: [start, boot('a'), booted('a'), serve('a'), settle('served')],
    front: 'serving a',
    bootFailed: false,
  },
  {
    name: 'a failed start with nothing serving refuses calls rather than holding them',
    steps: [start, settle('failed')],
    front: 'unavailable: boot-failed',
    bootFailed: true,
  },
  {
    name: 'a failed start with a child serving leaves it serving',
    steps: [start, serve('a'), settle('served'), start, settle('failed')],
    front: 'serving a',
    bootFailed: false,
  },
  {
    name: 'a child serving wins over a pending start',
    steps: [start, serve('a'), settle('served'), start, boot('b')],
    front: 'serving a',
  },
  {
    name: 'a swap returns the child it replaced, to retire',
    steps: [start, serve('a'), settle('served'), start, serve('b')],
    front: 'serving b',
    last: 'a',
  },
  {
    name: 'stop during a boot: the booting child is handed back to kill and nothing is coming',
    steps: [start, boot('a'), stop],
    front: 'unavailable: not-running',
    last: { booting: ['a'], serving: undefined },
  },
  {
    name: 'stop during a boot: the start settling as stopped does not count as a boot failure',
    steps: [start, boot('a'), stop, booted('a'), settle('stopped')],
    front: 'unavailable: not-running',
    bootFailed: false,
  },
  {
    name: 'stop hands back the serving child to retire',
    steps: [start, serve('a'), settle('served'), stop],
    front: 'unavailable: not-running',
    last: { booting: [], serving: 'a' },
  },
  {
    name: 'stop clears a boot failure',
    steps: [start, settle('failed'), stop],
    front: 'unavailable: not-running',
    bootFailed: false,
  },
  { name: 'the serving child crashing is not expected', steps: crashed, front: 'unavailable: not-running', last: true },
  {
    name: 'a replaced child exiting is expected and changes nothing',
    steps: [start, serve('a'), serve('b'), settle('served'), exit('a')],
    front: 'serving b',
    last: false,
  },
  {
    name: 'a crash schedules restart 1: calls are held',
    steps: [...crashed, schedule],
    front: 'expected',
    last: { attempt: 1, epoch: 0 },
    restartPending: true,
  },
  {
    name: 'a restart already pending stands',
    steps: [...crashed, schedule, schedule],
    front: 'expected',
    last: undefined,
    attempt: 1,
  },
  {
    name: 'a fired restart still boots: calls are held',
    steps: [...crashed, schedule, fire],
    front: 'expected',
    restartPending: false,
  },
  {
    name: 'a fired restart serves',
    steps: [...crashed, schedule, fire, serve('b'), restartSettled()],
    front: 'serving b',
  },
  {
    name: 'a failed restart refuses calls, though the next restart is pending',
    steps: [...crashed, schedule, fire, restartFailed, schedule, restartSettled(1)],
    front: 'unavailable: boot-failed',
    attempt: 2,
    bootFailed: true,
    restartPending: true,
  },
  {
    name: 'a failed restart reports that another is due',
    steps: [...crashed, schedule, fire, restartFailed],
    front: 'unavailable: boot-failed',
    last: true,
  },
  {
    name: 'a restart that boots after a child serves is moot',
    steps: [...crashed, schedule, fire, start, serve('b'), moot],
    front: 'serving b',
    last: true,
  },
  {
    name: 'a restart in the current epoch with nothing serving is not moot',
    steps: [...crashed, schedule, fire, moot],
    front: 'expected',
    last: false,
  },
  {
    name: 'start cancels a pending restart and resets the backoff',
    steps: [...crashed, schedule, start],
    front: 'expected',
    attempt: 0,
    restartPending: false,
  },
  {
    name: 'start clears a boot failure',
    steps: [...crashed, schedule, fire, restartFailed, start],
    front: 'expected',
    bootFailed: false,
  },
  {
    name: 'stop cancels a pending restart',
    steps: [...crashed, schedule, stop],
    front: 'unavailable: not-running',
    restartPending: false,
  },
  {
    name: 'a restart that fired before a stop is moot after it',
    steps: [...crashed, schedule, fire, stop, moot],
    front: 'unavailable: not-running',
    last: true,
  },
  {
    name: 'a restart of an older epoch failing after a stop does not refuse calls or reschedule',
    steps: [...crashed, schedule, fire, stop, restartFailed],
    front: 'unavailable: not-running',
    last: false,
    bootFailed: false,
  },
  {
    name: 'an older restart settling does not end a newer one',
    steps: [...crashed, schedule, fire, stop, ...crashed, schedule, fire, restartSettled(1)],
    front: 'expected',
  },
  {
    name: 'the newer restart settling does',
    steps: [...crashed, schedule, fire, stop, ...crashed, schedule, fire, restartSettled()],
    front: 'unavailable: not-running',
  },
];

describe('supervisor: the lifecycle', () => {
  it.each(rows)('$name', (row) => {
    const run = drive(row.steps);
    expect(front(run.life.frontState())).toBe(row.front);
    if ('last' in row) expect(run.last).toEqual(row.last);
    if (row.attempt !== undefined) expect(run.life.restartAttempt).toBe(row.attempt);
    if (row.bootFailed !== undefined) expect(run.life.bootFailed).toBe(row.bootFailed);
    if (row.restartPending !== undefined) expect(run.life.restartPending).toBe(row.restartPending);
  });

  it('counts restart attempts up while children crash young, and from 1 again after a stable one', () => {
    const run = drive([...crashed, schedule, fire, serve('b', 100), exit('b', 100 + STABLE_MS - 1), schedule]);
    expect(run.last).toEqual({ attempt: 2, epoch: 0 });
    fire(run);
    serve('c', 200)(run);
    exit('c', 200 + STABLE_MS)(run);
    schedule(run);
    expect(run.last).toEqual({ attempt: 1, epoch: 0 });
  });

  it('takes the stable time as an option', () => {
    const life = createSupervisorLifecycle<string>({ stableMs: 5 });
    life.childServing('a', target('a'), 0);
    life.childExited('a', 2);
    life.restartScheduled();
    life.restartFired(0);
    life.childServing('b', target('b'), 10);
    life.childExited('b', 15);
    expect(life.restartScheduled()).toEqual({ attempt: 1, epoch: 0 });
  });

  it('makes work begun before a stop stale, and only that', () => {
    const life = createSupervisorLifecycle<string>();
    const before = life.startAsked();
    expect(life.isStale(before.epoch)).toBe(false);
    life.stopped();
    expect(life.epoch).toBe(1);
    expect(life.isStale(before.epoch)).toBe(true);
    // A start from before the stop no longer holds calls, even unsettled.
    expect(life.frontState()).toEqual({ kind: 'unavailable', reason: 'not-running' });
    expect(life.isStale(life.startAsked().epoch)).toBe(false);
  });

  it('forgets a booting child once its boot ends', () => {
    const run = drive([start, boot('a'), boot('b'), booted('a'), stop]);
    expect(run.last).toEqual({ booting: ['b'], serving: undefined });
  });

  it('gives the front the target the child serves through', () => {
    const life = createSupervisorLifecycle<string>();
    const through = { ...target('a'), dispatcher: undefined };
    life.childServing('a', through, 0);
    expect(life.frontState()).toEqual({ kind: 'serving', target: through });
    expect(life.serving).toBe('a');
  });
});
