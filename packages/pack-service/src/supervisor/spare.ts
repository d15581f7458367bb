import type { Child } from './child.js';

/**
 * The one spare child a supervisor may keep (`warmSpare`): started ahead of need with the launch the
 * next start is expected to have, so that start skips starting node and loading the service's code.
 */
export interface SpareSlot {
  /** The spare, taken out of the slot, when it was started with exactly `key`'s launch and still waits. */
  take(key: string): Child | undefined;
  /** Keeps `child` as the spare for `key`'s launch (a previous spare is killed). */
  put(key: string, child: Child): void;
  /** Kills the spare, if any, and waits for it to exit. */
  clear(): Promise<void>;
}

interface Spare {
  key: string;
  child: Child;
  /** A spare's boot settles before its release only when it died (it cannot listen without its token). */
  settled: boolean;
}

export function createSpareSlot(): SpareSlot {
  let spare: Spare | undefined;
  const drop = (): Promise<unknown> => {
    const old = spare;
    spare = undefined;
    if (!old) return Promise.resolve();
    old.child.kill('SIGKILL');
    return old.child.exited;
  };
  return {
    take(key) {
      const found = spare;
      if (!found || found.key !== key || found.settled || found.child.hasExited) {
        void drop();
        return undefined;
      }
      spare = undefined;
      return found.child;
    },
    put(key, child) {
      void drop();
      const next: Spare = { key, child, settled: false };
      void child.booted.then(() => {
        next.settled = true;
      });
      spare = next;
    },
    async clear() {
      await drop();
    },
  };
}
