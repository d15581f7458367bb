import type { ServerResponse } from 'node:http';
import type { RelayTarget } from '../transport/relay.js';
import type { SupervisorEvent, UnavailableReason } from './types.js';

/** What the supervisor can offer a call right now. */
export type FrontState =
  | { kind: 'serving'; target: RelayTarget }
  /** No child serves, but one is coming (a restart is scheduled or booting, or a start boots with none serving). */
  | { kind: 'expected' }
  | { kind: 'unavailable'; reason: 'not-running' | 'boot-failed' };

/** Where a call goes: a child (after `heldMs` in the hold), a 503, or nowhere (its caller left). */
export type HoldOutcome =
  | { kind: 'target'; target: RelayTarget; heldMs: number }
  | { kind: 'unavailable'; reason: UnavailableReason }
  | { kind: 'left' };

export interface HoldRequest {
  /** The caller's response: its `close` while held drops the call. */
  res: ServerResponse;
  /** How long this call may still be held. */
  boundMs: number;
  /** A child URL that just refused this call: wait for another one rather than going back to it. */
  avoid?: string;
}

/** Calls waiting for a child, released in arrival order. */
export interface CallHolds {
  /** A target for the call now, after a hold, or never. */
  acquire(request: HoldRequest): Promise<HoldOutcome>;
  /** Re-examines every held call against the supervisor's state; call it after every change of that state. */
  update(): void;
  /** Calls held now. */
  readonly size: number;
}

export interface CallHoldsOptions {
  state: () => FrontState;
  maxHeld: number;
  emit: (event: SupervisorEvent) => void;
}

interface Held {
  avoid: string | undefined;
  since: number;
  settle: (outcome: HoldOutcome) => void;
}

/** The outcome for a call given the state: a target it may use, a 503, or `undefined` (keep waiting). */
function decide(state: FrontState, avoid: string | undefined, since: number): HoldOutcome | undefined {
  if (state.kind === 'unavailable') return { kind: 'unavailable', reason: state.reason };
  if (state.kind === 'serving' && state.target.url !== avoid) {
    return { kind: 'target', target: state.target, heldMs: Date.now() - since };
  }
  return undefined;
}

/**
 * The front's hold: while no child serves but one is coming, calls wait here (bounded in time and number)
 * instead of being refused, so a restart costs callers latency, not errors.
 */
export function createCallHolds(options: CallHoldsOptions): CallHolds {
  // A Set keeps insertion order, so releases are first come, first served.
  const held = new Set<Held>();

  const acquire = (request: HoldRequest): Promise<HoldOutcome> => {
    // A caller already gone (its body read, then it left) is not sent anywhere.
    if (request.res.destroyed) return Promise.resolve({ kind: 'left' });
    const now = Date.now();
    const immediate = decide(options.state(), request.avoid, now);
    // Not held at all: the child gets the caller's deadline as sent, not one cut by a clock tick.
    if (immediate) return Promise.resolve(immediate.kind === 'target' ? { ...immediate, heldMs: 0 } : immediate);
    if (request.boundMs <= 0) return Promise.resolve({ kind: 'unavailable', reason: 'restarting' });
    if (held.size >= options.maxHeld) {
      options.emit({ kind: 'call-refused', reason: 'hold-full', held: held.size });
      return Promise.resolve({ kind: 'unavailable', reason: 'hold-full' });
    }
    return new Promise<HoldOutcome>((resolve) => {
      const onClose = (): void => entry.settle({ kind: 'left' });
      const timer = setTimeout(() => entry.settle({ kind: 'unavailable', reason: 'hold-timeout' }), request.boundMs);
      const entry: Held = {
        avoid: request.avoid,
        since: now,
        settle: (outcome) => {
          if (!held.delete(entry)) return;
          clearTimeout(timer);
          request.res.off('close', onClose);
          options.emit({
            kind: 'call-released',
            outcome: outcome.kind === 'target' ? 'forwarded' : outcome.kind === 'left' ? 'caller-left' : 'unavailable',
            ...(outcome.kind === 'unavailable' ? { reason: outcome.reason } : {}),
            heldMs: Date.now() - now,
            held: held.size,
          });
          resolve(outcome);
        },
      };
      held.add(entry);
      request.res.once('close', onClose);
      options.emit({ kind: 'call-held', held: held.size });
    });
  };

  return {
    acquire,
    update() {
      if (held.size === 0) return;
      const state = options.state();
      for (const entry of [...held]) {
        const outcome = decide(state, entry.avoid, entry.since);
        if (outcome) entry.settle(outcome);
      }
    },
    get size() {
      return held.size;
    },
  };
}
