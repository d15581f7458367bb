import { type RunKey, type RunStore, TERMINAL_RUN_STATUSES } from '@kindgi/bindings';

/** What keeps a claimed run: the store, the lease it renews, and whom it tells. */
export interface RunLeaseKeeping {
  runStore: RunStore;
  owner: string;
  leaseMs: number;
  /** The run is no longer this executor's (cancelled, interrupted, finished elsewhere). */
  lost: () => void;
  /** A renewal failed for the store's own reasons. */
  onStoreFailure: () => void;
}

/**
 * Renews the run's lease every third of it and watches the run, calling `lost` once the store says the run
 * is no longer running under `owner` (a cancel on another server shows as a change of the run). A store
 * that cannot answer has not ended the run: only a definite answer does. Returns the stop.
 *
 * A notice that carries the run's status answers by itself: a terminal one is the end, any other is this
 * executor's own doing (its claim) or leaves the run to it. Only a notice without one is read after.
 */
export function keepRunLeased(run: RunKey, keeping: RunLeaseKeeping): () => void {
  const { runStore, owner, leaseMs, lost, onStoreFailure } = keeping;
  const unwatch = runStore.watch(run.tenantId, run.runId, (status) => {
    if (status !== undefined) {
      if (TERMINAL_RUN_STATUSES.has(status)) lost();
      return;
    }
    runStore.get(run.tenantId, run.runId).then((current) => {
      if (current.kind === 'ok' && (current.value === null || TERMINAL_RUN_STATUSES.has(current.value.status))) lost();
    }, lost);
  });
  const heartbeat = setInterval(
    () => {
      runStore.heartbeat(run.tenantId, run.runId, owner, leaseMs).then((held) => {
        if (held.kind === 'err') onStoreFailure();
        else if (!held.value) lost();
      }, lost);
    },
    Math.max(10, Math.floor(leaseMs / 3)),
  );
  heartbeat.unref();
  return () => {
    clearInterval(heartbeat);
    unwatch();
  };
}
