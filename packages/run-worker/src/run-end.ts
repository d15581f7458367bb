import { type RunKey, type RunRecord, type RunStatus, type RunStore, TERMINAL_RUN_STATUSES } from '@kindgi/bindings';
import { err, ok, type Result } from '@kindgi/protocol';
import type { RunWorkerError } from './errors.js';

/** A watch of one run for its end, taken before whatever could end it (e.g. before its enqueue). */
export interface RunEndWatch {
  /**
   * The run once it is terminal, or `waiting` at an approval gate (it goes on only when someone decides).
   * `known` is the run as it was when the watch was taken: it stands until a notice says otherwise, so a
   * watch taken before the enqueue need not read the run it just queued. Stops the watch when it settles.
   */
  done(known?: RunRecord): Promise<Result<RunRecord, RunWorkerError>>;
  /** Stops watching without waiting (the enqueue failed). */
  stop(): void;
  /**
   * This process's executor stopped executing the run: `run` is the end it recorded (taken as it is, the
   * store's answer to that write), none when it recorded none (the wait then reads, if it let a notice pass).
   */
  handOff(run?: RunRecord): void;
}

const endsWait = (status: RunStatus) => TERMINAL_RUN_STATUSES.has(status) || status === 'waiting';

/**
 * Watches `key` for its end: the run is re-read at a notice that may end the wait (one whose status ends it,
 * or one without a status), and every `pollMs` for the changes the store cannot announce (another server's,
 * without a shared notification channel, or a notice lost with a connection). A notice of a status that does
 * not end the wait (the claim's `running`) is skipped: it cannot change the outcome. So is one that ends it
 * while `executingHere()`: this process's executor hands the end over (`handOff`) once it stops.
 */
export function watchRunEnd(
  runStore: RunStore,
  key: RunKey,
  pollMs: number,
  executingHere: () => boolean = () => false,
): RunEndWatch {
  const { tenantId, runId } = key;
  let dirty = false;
  let awaitingHandOff = false;
  let handed: RunRecord | undefined;
  let wake: (() => void) | undefined;
  const unwatch = runStore.watch(tenantId, runId, (status) => {
    if (status !== undefined && !endsWait(status)) return;
    if (status !== undefined && executingHere()) {
      awaitingHandOff = true;
      return;
    }
    dirty = true;
    wake?.();
  });
  const sleep = () =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, pollMs);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    }).finally(() => {
      wake = undefined;
    });
  return {
    async done(known) {
      try {
        let run = known;
        for (;;) {
          if (handed !== undefined) return ok(handed);
          if (run === undefined || dirty) {
            dirty = false;
            const read = await runStore.get(tenantId, runId);
            if (read.kind === 'err') return read;
            if (read.value === null) return err({ code: 'run-not-found', message: `No run '${runId}'.`, runId });
            run = read.value;
          }
          if (endsWait(run.status)) return ok(run);
          // A notice during the read is not lost: `dirty` reads again at once.
          if (!dirty && handed === undefined) await sleep();
          run = undefined;
        }
      } finally {
        unwatch();
      }
    },
    stop: unwatch,
    handOff(run) {
      if (run !== undefined && endsWait(run.status)) handed = run;
      else if (awaitingHandOff) dirty = true;
      else return;
      awaitingHandOff = false;
      wake?.();
    },
  };
}

/** The run once it ends (see `RunEndWatch.done`), watched from now and read first. */
export function waitForRunEnd(
  runStore: RunStore,
  key: RunKey,
  pollMs: number,
): Promise<Result<RunRecord, RunWorkerError>> {
  return watchRunEnd(runStore, key, pollMs).done();
}

/**
 * The end watches of the runs started in this process, to which its executor hands the ends it records:
 * a waiter whose run executed here then takes the end without reading it back.
 */
export class LocalRunEnds {
  readonly #watches = new Map<string, Set<RunEndWatch>>();

  constructor(
    private readonly runStore: RunStore,
    private readonly pollMs: number,
    private readonly executing: (key: RunKey) => boolean,
  ) {}

  /** A watch of `key` taken now (before its enqueue), handed the end if it executes here. */
  watch(key: RunKey): RunEndWatch {
    const id = idOf(key);
    const watch = watchRunEnd(this.runStore, key, this.pollMs, () => this.executing(key));
    const set = this.#watches.get(id) ?? new Set();
    this.#watches.set(id, set);
    set.add(watch);
    const forget = () => {
      set.delete(watch);
      if (set.size === 0 && this.#watches.get(id) === set) this.#watches.delete(id);
    };
    return {
      done: (known) => watch.done(known).finally(forget),
      stop: () => {
        watch.stop();
        forget();
      },
      handOff: (run) => watch.handOff(run),
    };
  }

  /** The executor stopped executing `key`: `run` is the end it recorded, if it recorded one. */
  handOff(key: RunKey, run?: RunRecord): void {
    for (const watch of this.#watches.get(idOf(key)) ?? []) watch.handOff(run);
  }
}

const idOf = (key: RunKey) => JSON.stringify([key.tenantId, key.runId]);
