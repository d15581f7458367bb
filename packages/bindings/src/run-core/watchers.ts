import type { RunStatus, RunStore } from '../runs.js';

/** The watchers of a store used by one process: `changed` and `queued` call them after a commit. */
export interface LocalRunWatchers {
  watch: RunStore['watch'];
  watchQueue: RunStore['watchQueue'];
  /** `status`: the run's status after a transition (see `RunStore.watch`); absent for a journal entry. */
  changed(tenantId: string, runId: string, status?: RunStatus): void;
  queued(): void;
}

export function createLocalRunWatchers(): LocalRunWatchers {
  const runs = new Map<string, Set<(status?: RunStatus) => void>>();
  const queue = new Set<() => void>();
  const keyOf = (tenantId: string, runId: string) => `${tenantId}\u0000${runId}`;
  return {
    watch(tenantId, runId, onChange) {
      const key = keyOf(tenantId, runId);
      const set = runs.get(key) ?? new Set();
      runs.set(key, set);
      set.add(onChange);
      return () => {
        set.delete(onChange);
        if (set.size === 0 && runs.get(key) === set) runs.delete(key);
      };
    },
    watchQueue(onQueued) {
      queue.add(onQueued);
      return () => queue.delete(onQueued);
    },
    changed(tenantId, runId, status) {
      for (const listener of runs.get(keyOf(tenantId, runId)) ?? []) listener(status);
    },
    queued() {
      for (const listener of queue) listener();
    },
  };
}
