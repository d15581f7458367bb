import { ok, type Result } from '@kindgi/protocol';
import { createSessionToken, isValidSessionToken } from '../transport/token.js';
import { type BootDeps, type BootedChild, bootChild, spawnSpare } from './boot.js';
import { type Child, childPool } from './child.js';
import { createFrontHandler } from './front.js';
import { type FrontServer, listenFront } from './front-server.js';
import { type CallHolds, createCallHolds } from './hold.js';
import { retireChild } from './launch.js';
import { createSupervisorLifecycle, type StartSettled, type SupervisorLifecycle } from './lifecycle.js';
import { createRestartTimer, type RestartTimer } from './restart-timer.js';
import { createSerialQueue, type SerialQueue } from './serial-queue.js';
import { createSpareSlot, type SpareSlot } from './spare.js';
import type {
  PackServiceSupervisor,
  PackServiceSupervisorOptions,
  SupervisorEvent,
  SupervisorStartError,
  SupervisorStarted,
} from './types.js';

export type { PackServiceSupervisor } from './types.js';

/** A misconfiguration or a front that can't listen. */
export class SupervisorError extends Error {
  readonly code: 'supervisor-config-invalid' | 'listen-failed';
  constructor(code: SupervisorError['code'], message: string) {
    super(message);
    this.name = 'SupervisorError';
    this.code = code;
  }
}

type StartOutcome = Result<SupervisorStarted, SupervisorStartError>;

/** What the supervisor's steps share: its state, its effects, and the queue its boots run through. */
interface Supervision {
  options: PackServiceSupervisorOptions;
  token: string;
  emit: (event: SupervisorEvent) => void;
  life: SupervisorLifecycle<Child>;
  restarts: RestartTimer;
  holds: CallHolds;
  boot: BootDeps;
  serialize: SerialQueue;
  retiring: Set<Promise<void>>;
  /** With `warmSpare`: the child started ahead of the next start. */
  spares: SpareSlot | undefined;
}

function nonNegative(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 0) {
    throw new SupervisorError('supervisor-config-invalid', `\`${name}\` must be a number ≥ 0`);
  }
  return value;
}

// Every change of the lifecycle ends with this, so held calls move on as soon as they can.
function changed(s: Supervision): void {
  s.holds.update();
}

function retire(s: Supervision, child: Child): Promise<void> {
  s.emit({ kind: 'child-retiring', pid: child.pid });
  // New calls already go to its successor.
  const done = retireChild(child, s.options.drainMs ?? 30_000, s.options.killAfterMs ?? 10_000);
  s.retiring.add(done);
  void done.finally(() => s.retiring.delete(done));
  return done;
}

/** Switches calls to a child that listens, and retires the one it replaces. */
function serve(s: Supervision, { child, port }: BootedChild): SupervisorStarted {
  const url = `http://127.0.0.1:${port}`;
  child.url = url;
  child.pool = childPool(url);
  const previous = s.life.childServing(child, { url, token: s.token, dispatcher: child.pool }, Date.now());
  watchServing(s, child);
  s.emit({ kind: 'child-serving', pid: child.pid, port, replaced: previous?.pid });
  changed(s);
  if (previous) void retire(s, previous);
  // The next spare starts at once: saves come in quick succession, and a spare still loading when it is
  // released saves less of the boot.
  if (s.spares) void fillSpare(s, child.indexPath, s.life.epoch);
  return { pid: child.pid, port };
}

/** Starts a spare child for the next start on `indexPath`, unless a `stop()` came since `epoch`. */
async function fillSpare(s: Supervision, indexPath: string, epoch: number): Promise<void> {
  if (!s.spares || s.life.isStale(epoch)) return;
  const spare = await spawnSpare(s.boot, indexPath);
  if (!spare) return;
  if (s.life.isStale(epoch)) {
    spare.child.kill('SIGKILL');
    return;
  }
  s.spares.put(spare.key, spare.child);
  s.emit({ kind: 'spare-spawned', pid: spare.child.pid });
}

/** The serving child's exit: expected once it was replaced or stopped, else a crash that schedules a restart. */
function watchServing(s: Supervision, child: Child): void {
  void child.exited.then(({ exitCode, signal }) => {
    const expected = s.life.serving !== child;
    s.emit({ kind: 'child-exited', pid: child.pid, exitCode, signal, expected });
    if (expected) return;
    s.life.childExited(child, Date.now());
    void child.pool?.destroy();
    scheduleRestart(s, child.indexPath);
    changed(s);
  });
}

// A crashed child restarts on the code it was running (a newer start() cancels the restart).
function scheduleRestart(s: Supervision, indexPath: string): void {
  const due = s.life.restartScheduled();
  if (!due) return;
  const delayMs = s.restarts.arm(due.attempt, () => {
    s.life.restartFired(due.epoch);
    void s.serialize(() => restart(s, indexPath, due.epoch));
  });
  s.emit({ kind: 'restart-scheduled', attempt: due.attempt, delayMs });
}

async function restart(s: Supervision, indexPath: string, epoch: number): Promise<void> {
  try {
    // A start() or stop() since the crash already decided what serves.
    if (s.life.restartMoot(epoch)) return;
    const outcome = await bootAndServe(s, indexPath, 'restart', epoch);
    if (outcome.kind === 'err' && s.life.restartFailed(epoch)) scheduleRestart(s, indexPath);
  } finally {
    s.life.restartSettled(epoch);
    changed(s);
  }
}

// `epoch` is the one the start was asked in: a stop() in between cancels it.
async function bootAndServe(
  s: Supervision,
  indexPath: string,
  reason: 'start' | 'restart',
  epoch: number,
): Promise<StartOutcome> {
  const booted = await bootChild(s.boot, { indexPath, reason, stale: () => s.life.isStale(epoch) });
  return booted.kind === 'ok' ? ok(serve(s, booted.value)) : booted;
}

function settledAs(outcome: StartOutcome | undefined): StartSettled {
  if (outcome?.kind === 'ok') return 'served';
  // No outcome: the boot threw; that counts as a failure.
  return outcome?.error.code === 'stopped' ? 'stopped' : 'failed';
}

async function start(s: Supervision, indexPath: string): Promise<StartOutcome> {
  s.restarts.cancel();
  const ticket = s.life.startAsked();
  let outcome: StartOutcome | undefined;
  try {
    outcome = await s.serialize(() => bootAndServe(s, indexPath, 'start', ticket.epoch));
    return outcome;
  } finally {
    s.life.startSettled(ticket, settledAs(outcome));
    changed(s);
  }
}

async function stop(s: Supervision): Promise<void> {
  s.restarts.cancel();
  const { booting, serving } = s.life.stopped();
  for (const child of booting) child.kill('SIGKILL');
  const spareGone = s.spares?.clear();
  changed(s);
  if (serving) void retire(s, serving);
  await Promise.all([...s.retiring, ...booting.map((child) => child.exited), spareGone]);
  s.emit({ kind: 'stopped' });
}

/**
 * Creates a supervisor for local development. Throws a `SupervisorError` for an invalid token, command or
 * hold option (programming errors); everything at run time is reported through results and events.
 *
 * The front's replies: the serving child's reply as it is; 502 when the child died with the call in flight
 * (it may have run); 503 + `retry-after: 1` when the call did not run. While no child serves but one is
 * coming (a crashed child's restart is scheduled or booting, or a `start()` boots while none serves), the
 * front holds calls, first come first served, and forwards them once a child serves; it answers 503 only
 * when no child is coming (never started, after `stop()` / `close()`), when that boot fails, when the hold
 * passes `holdWhileRestartingMs` (or the call's `kindgi-timeout-ms`), or when `maxHeldCalls` are held.
 * A held call whose caller disconnects is dropped unsent. `/readyz` never holds: 200 only while a child serves.
 */
export function createPackServiceSupervisor(options: PackServiceSupervisorOptions): PackServiceSupervisor {
  const token = options.token ?? createSessionToken();
  if (!isValidSessionToken(token)) {
    throw new SupervisorError('supervisor-config-invalid', 'The session token must match ^[A-Za-z0-9_-]{32,}$');
  }
  if (Array.isArray(options.command) && options.command.length === 0) {
    throw new SupervisorError('supervisor-config-invalid', '`command` must name a program');
  }
  const holdMs = nonNegative(options.holdWhileRestartingMs, 10_000, 'holdWhileRestartingMs');
  const maxHeld = nonNegative(options.maxHeldCalls, 1_000, 'maxHeldCalls');
  const emit = (event: SupervisorEvent): void => options.onEvent?.(event);
  const life = createSupervisorLifecycle<Child>();
  const state = () => life.frontState();
  const holds = createCallHolds({ state, maxHeld, emit });
  const began = (child: Child) => life.bootBegan(child);
  const ended = (child: Child) => life.bootEnded(child);
  const spares = options.warmSpare && (options.tokenVia ?? 'fd') === 'fd' ? createSpareSlot() : undefined;
  const s: Supervision = {
    options,
    token,
    emit,
    life,
    holds,
    restarts: createRestartTimer(options.restartBackoff),
    boot: { options, token, emit, began, ended, ...(spares ? { spares } : {}) },
    serialize: createSerialQueue(),
    retiring: new Set(),
    spares,
  };
  let front: FrontServer | undefined;
  // One listen at a time: a second listen() while the first is binding gets the same front.
  let listening: Promise<FrontServer> | undefined;
  const listenOnce = async (): Promise<FrontServer> => {
    const maxReplyBytes = options.maxReplyBytes !== undefined ? { maxReplyBytes: options.maxReplyBytes } : {};
    const handler = createFrontHandler({ token, state, holds, holdMs, ...maxReplyBytes });
    const listened = await listenFront(handler, options.host ?? '127.0.0.1', options.port ?? 0);
    if (listened.kind === 'err') throw new SupervisorError('listen-failed', listened.error);
    front = listened.value;
    emit({ kind: 'front-listening', url: front.url });
    return front;
  };

  return {
    token,
    get url() {
      return front?.url;
    },
    get servingPid() {
      return life.serving?.pid;
    },
    async listen() {
      listening ??= listenOnce().catch((error: unknown) => {
        listening = undefined;
        throw error;
      });
      return { url: (await listening).url, token };
    },
    start: (indexPath) => start(s, indexPath),
    stop: () => stop(s),
    async close() {
      await stop(s);
      const closing = front;
      front = undefined;
      listening = undefined;
      await closing?.close();
      emit({ kind: 'closed' });
    },
  };
}
