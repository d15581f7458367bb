import { type RunKey, type RunRecord, type RunStore, TERMINAL_RUN_STATUSES } from '@kindgi/bindings';
import { err, ok, type Result } from '@kindgi/protocol';
import type { RunWorkerError } from './errors.js';

/**
 * The run once it is terminal, or `waiting` at an approval gate (it goes on only when someone decides): re-read at every change the store announces, and every `pollMs` for the
 * changes it cannot announce (another server's, without a shared notification channel).
 */
export async function waitForRunEnd(
  runStore: RunStore,
  key: RunKey,
  pollMs: number,
): Promise<Result<RunRecord, RunWorkerError>> {
  const { tenantId, runId } = key;
  let wake: (() => void) | undefined;
  const unwatch = runStore.watch(tenantId, runId, () => wake?.());
  try {
    for (;;) {
      const read = await runStore.get(tenantId, runId);
      if (read.kind === 'err') return read;
      const run = read.value;
      if (run === null) return err({ code: 'run-not-found', message: `No run '${runId}'.`, runId });
      if (TERMINAL_RUN_STATUSES.has(run.status) || run.status === 'waiting') return ok(run);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pollMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  } finally {
    unwatch();
  }
}
