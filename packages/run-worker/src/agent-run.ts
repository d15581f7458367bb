import type {
  ApprovalRecord,
  ClaimedRun,
  RunJob,
  RunOutcome,
  RunRecord,
  RunStore,
  RunStoreError,
  SuspendedTurn,
} from '@kindgi/bindings';
import type { AttemptResult } from './run-call.js';

/** One agent run (or its resumption) as the executor hands it to the app's turn runner. */
export interface AgentRunRequest {
  run: RunRecord;
  job: RunJob;
  /** Present when the run resumes after an approval was decided: that approval and the turn's state. */
  resume?: SuspendedTurn;
  signal: AbortSignal;
  /** Journals one event of the turn; the executor writes them in order and awaits them before the outcome. */
  journal(kind: string, data: unknown): void;
}

/** How an agent run's turn ended: an outcome to record, or a suspension at an approval gate. */
export type AgentRunResult =
  | { kind: 'outcome'; outcome: RunOutcome }
  | { kind: 'suspended'; approval: ApprovalRecord; state: unknown };

/**
 * Runs an agent turn for a claimed run. The app builds it from the agent kernel (run-worker knows no kernel:
 * the kernel depends on run-worker) and hands it to the executor. It never throws.
 */
export type AgentTurnRunner = (request: AgentRunRequest) => Promise<AgentRunResult>;

/** An agent attempt's result: the tool attempt's kinds, or a suspension. */
export type AgentAttemptResult = AttemptResult | { kind: 'suspended'; approval: ApprovalRecord; state: unknown };

function failedOutcome(code: string, message: string): AgentAttemptResult {
  return { kind: 'outcome', outcome: { status: 'failed', error: { code, message } } };
}

/** Journals in order, remembering the first failed write (the run then fails as the executor's own error). */
function journalChain(runStore: RunStore, run: RunRecord) {
  let chain: Promise<RunStoreError | undefined> = Promise.resolve(undefined);
  return {
    journal(kind: string, data: unknown): void {
      chain = chain.then(async (failed) => {
        if (failed !== undefined) return failed;
        const appended = await runStore.appendEvent(run.tenantId, run.runId, { kind, data });
        return appended.kind === 'err' ? appended.error : undefined;
      });
    },
    settled: () => chain,
  };
}

/**
 * One attempt of an agent run: a fresh turn, or (a later claim of a run that waited) the resumption of its
 * decided approval. Events are journaled as the turn reports them.
 */
export async function attemptAgentRun(
  deps: { runStore: RunStore; runTurn?: AgentTurnRunner | undefined },
  claimed: ClaimedRun,
  signal: AbortSignal,
): Promise<AgentAttemptResult> {
  const { run, job } = claimed;
  if (deps.runTurn === undefined) {
    return failedOutcome('agents-unsupported', 'This server runs no agents (no models configured).');
  }
  let resume: SuspendedTurn | undefined;
  if (claimed.attempt > 1) {
    const found = await deps.runStore.suspendedTurn(run.tenantId, run.runId);
    if (found.kind === 'err') return { kind: 'store-failed', error: found.error };
    if (found.value !== null) {
      // A run claimed again with its approval undecided was not resumed by a decision: nothing to go on.
      if (found.value.approval.status === 'pending') {
        return failedOutcome('run-interrupted', 'The run was claimed again while its approval was pending.');
      }
      resume = found.value;
    }
  }
  const events = journalChain(deps.runStore, run);
  let result: AgentRunResult;
  try {
    result = await deps.runTurn({
      run,
      job,
      signal,
      journal: events.journal,
      ...(resume !== undefined ? { resume } : {}),
    });
  } catch (thrown) {
    result = {
      kind: 'outcome',
      outcome: { status: 'failed', error: { code: 'internal-server-error', message: String(thrown) } },
    };
  }
  const failed = await events.settled();
  if (failed !== undefined) return { kind: 'store-failed', error: failed };
  return result;
}
