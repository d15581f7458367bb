import type { RelayTarget } from '../transport/relay.js';
import type { FrontState } from './hold.js';

/** A child that served this long before crashing resets the restart backoff. */
export const STABLE_MS = 10_000;

/** One `start()` call until it settles; it counts only in the epoch it was asked in. */
export interface StartTicket {
  readonly epoch: number;
}

/** How a `start()` ended: a child serves, a `stop()` made it moot, or it failed (or threw). */
export type StartSettled = 'served' | 'stopped' | 'failed';

/** A restart to arm a timer for: its 1-based attempt and the epoch it belongs to. */
export interface RestartDue {
  attempt: number;
  epoch: number;
}

/**
 * Which children serve, boot or are coming, and what the front may therefore promise a call. Pure state:
 * no timers, no processes, no I/O (time comes in as `now`), so every transition is tested directly; the
 * supervisor performs the effects (kill, spawn, arm or cancel the timer) around them.
 */
export interface SupervisorLifecycle<C> {
  /** Bumped by `stopped()`: a boot, start or restart of an older epoch must not make a child serve. */
  readonly epoch: number;
  /** The child calls go to now. */
  readonly serving: C | undefined;
  /** The attempt number of the latest scheduled restart (0 after a start or a stable child). */
  readonly restartAttempt: number;
  /** The boot that was to end a gap failed: calls are refused, not held, until a child serves or a start. */
  readonly bootFailed: boolean;
  /** Whether a restart timer is armed (the supervisor owns the timer itself). */
  readonly restartPending: boolean;
  /** What the front may do with a call now. */
  frontState(): FrontState;
  /** Whether a `stop()` since `epoch` makes work begun then moot. */
  isStale(epoch: number): boolean;
  /** A `start()` was asked for: it cancels a pending restart (disarm its timer) and resets the backoff. */
  startAsked(): StartTicket;
  /** That `start()` ended; a failure with nothing serving refuses calls rather than holding them. */
  startSettled(ticket: StartTicket, how: StartSettled): void;
  /** A child was spawned and boots (a `stop()` kills the ones booting). */
  bootBegan(child: C): void;
  /** That child listened or failed to. */
  bootEnded(child: C): void;
  /** `child` serves from `now`, relayed to through `target`; returns the child it replaced (to retire). */
  childServing(child: C, target: RelayTarget, now: number): C | undefined;
  /** A child exited: `true` when it was the serving one (a crash, so a restart is due), `false` if expected. */
  childExited(child: C, now: number): boolean;
  /** A restart is due; `undefined` when one is already pending (it stands). */
  restartScheduled(): RestartDue | undefined;
  /** The timer of the restart of `epoch` fired: its boot is queued. */
  restartFired(epoch: number): void;
  /** Whether a `start()` or `stop()` since the crash already decided what serves. */
  restartMoot(epoch: number): boolean;
  /** The restart's boot failed: `true` when it still matters (another restart is due). */
  restartFailed(epoch: number): boolean;
  /** The restart's boot ran (or was moot). */
  restartSettled(epoch: number): void;
  /** `stop()`: nothing serves or is coming; returns the children to kill (booting) and to retire (serving). */
  stopped(): { booting: C[]; serving: C | undefined };
}

/** A lifecycle with nothing serving, nothing coming and epoch 0. `stableMs` defaults to `STABLE_MS`. */
export function createSupervisorLifecycle<C>(options: { stableMs?: number } = {}): SupervisorLifecycle<C> {
  const stableMs = options.stableMs ?? STABLE_MS;
  let epoch = 0;
  let serving: { child: C; target: RelayTarget; since: number } | undefined;
  const booting = new Set<C>();
  // start() calls not yet settled, by the epoch they began in (a stop() since makes them moot).
  const pendingStarts = new Set<StartTicket>();
  let bootFailed = false;
  let restartAttempt = 0;
  let restartPending = false;
  // The epoch of a restart whose timer fired and whose boot is queued or running.
  let restartEpoch: number | undefined;

  return {
    get epoch() {
      return epoch;
    },
    get serving() {
      return serving?.child;
    },
    get restartAttempt() {
      return restartAttempt;
    },
    get bootFailed() {
      return bootFailed;
    },
    get restartPending() {
      return restartPending;
    },
    frontState() {
      if (serving) return { kind: 'serving', target: serving.target };
      if ([...pendingStarts].some((start) => start.epoch === epoch)) return { kind: 'expected' };
      if (bootFailed) return { kind: 'unavailable', reason: 'boot-failed' };
      if (restartPending || restartEpoch === epoch) return { kind: 'expected' };
      return { kind: 'unavailable', reason: 'not-running' };
    },
    isStale: (since) => since !== epoch,
    startAsked() {
      restartPending = false;
      restartAttempt = 0;
      bootFailed = false;
      const ticket = { epoch };
      pendingStarts.add(ticket);
      return ticket;
    },
    startSettled(ticket, how) {
      pendingStarts.delete(ticket);
      if (how === 'failed' && !serving) bootFailed = true;
    },
    bootBegan: (child) => void booting.add(child),
    bootEnded: (child) => void booting.delete(child),
    childServing(child, target, now) {
      const previous = serving?.child;
      serving = { child, target, since: now };
      bootFailed = false;
      return previous;
    },
    childExited(child, now) {
      if (!serving || serving.child !== child) return false;
      if (now - serving.since >= stableMs) restartAttempt = 0;
      serving = undefined;
      return true;
    },
    restartScheduled() {
      if (restartPending) return undefined;
      restartPending = true;
      restartAttempt++;
      return { attempt: restartAttempt, epoch };
    },
    restartFired(firedEpoch) {
      restartPending = false;
      restartEpoch = firedEpoch;
    },
    restartMoot: (restart) => serving !== undefined || restart !== epoch,
    restartFailed(restart) {
      if (serving || restart !== epoch) return false;
      bootFailed = true;
      return true;
    },
    restartSettled(restart) {
      if (restartEpoch === restart) restartEpoch = undefined;
    },
    stopped() {
      epoch++;
      restartPending = false;
      const current = serving?.child;
      serving = undefined;
      bootFailed = false;
      return { booting: [...booting], serving: current };
    },
  };
}
