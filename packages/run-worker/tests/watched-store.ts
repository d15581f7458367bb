import type { RunStatus, RunStore } from '@kindgi/bindings';

/** A store whose reads are counted and whose run notices the test sends itself (the store's are lost). */
export interface WatchedStore {
  runStore: RunStore;
  /** `get` calls so far. */
  reads(): number;
  /** Sends every watcher a notice, as a store would (no status: "re-read", e.g. after a reconnect). */
  notify(status?: RunStatus): void;
}

/** `store` with counted reads; with `deaf`, its own notices never reach the watchers (a lost connection). */
export function watchedStore(store: RunStore, deaf = false): WatchedStore {
  let reads = 0;
  const listeners = new Set<(status?: RunStatus) => void>();
  const runStore: RunStore = {
    ...store,
    get: (tenantId, runId) => {
      reads++;
      return store.get(tenantId, runId);
    },
    watch: (tenantId, runId, onChange) => {
      listeners.add(onChange);
      const unwatch = deaf ? () => {} : store.watch(tenantId, runId, onChange);
      return () => {
        listeners.delete(onChange);
        unwatch();
      };
    },
  };
  return {
    runStore,
    reads: () => reads,
    notify: (status) => {
      for (const listener of [...listeners]) listener(status);
    },
  };
}
