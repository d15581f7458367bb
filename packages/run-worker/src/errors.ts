import type { RunStoreError } from '@kindgi/bindings';

/**
 * Why the worker could not queue, cancel or wait for a run: the run store's refusal or failure as the store
 * gave it (`run-queue-full`, `run-not-found`, `run-already-terminal`, `run-store-error`, …). `runId` is set
 * when the worker itself found the run missing. Each surface maps it to its own error once.
 */
export type RunWorkerError = RunStoreError & { runId?: string };
