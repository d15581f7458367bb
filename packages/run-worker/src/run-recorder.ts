import type { ApiLogger, RunKey, RunOutcome, RunRecord, RunStore, RunStoreError } from '@kindgi/bindings';
import type { Result } from '@kindgi/protocol';
import { type RetryPlan, retryStoreWrite } from './record-retry.js';

/** What the recorder writes through and how long it keeps trying. */
export interface RunRecorderDeps {
  runStore: RunStore;
  logger: ApiLogger;
  /** How long one transition is retried while the store fails. */
  retryMs: number;
  /** The run's lease: waits between attempts stay well under it. */
  leaseMs: number;
  /** Told whenever a write failed for the store's own reasons (the executor then holds off its lease sweep). */
  onStoreFailure: () => void;
}

/** One stretch of failing writes: from the first failure until no write is pending. */
interface Held {
  since: number;
  runs: number;
  lost: number;
}

/**
 * Records the transitions an executor makes (a run's end, its return to the queue) so that a store outage
 * does not lose them: a write the store failed is retried (`retryStoreWrite`) while the outcome waits in
 * memory, and lands once the store is back. The executor keeps heartbeating meanwhile, and the store lets the
 * owner finish a run whose lease ran out as long as no sweep failed it. One line is logged when writes start
 * failing and one when the last held write landed, however many runs and attempts were in between.
 */
export class RunRecorder {
  readonly #pending = new Set<string>();
  readonly #stop = new AbortController();
  readonly #plan: RetryPlan;
  #episode: Held | undefined;

  constructor(private readonly deps: RunRecorderDeps) {
    // Attempts at least every third of the lease, as heartbeats are, and never more than 5 s apart.
    this.#plan = {
      totalMs: deps.retryMs,
      firstDelayMs: 100,
      maxDelayMs: Math.max(100, Math.min(5_000, deps.leaseMs / 3)),
    };
  }

  /**
   * Records the run's end under `owner`'s lease; returns the ended run once recorded. A lost lease means a
   * cancel or sweep ended it: that stands.
   */
  async finish(run: RunKey, outcome: RunOutcome, owner: string): Promise<RunRecord | undefined> {
    const { runStore } = this.deps;
    const finished = await this.#write(run, () => runStore.finish(run.tenantId, run.runId, outcome, { owner }));
    if (finished.kind === 'ok') return finished.value;
    if (finished.error.code !== 'run-lease-lost') {
      this.deps.logger.error('could not record the end of a run', { runId: run.runId, error: finished.error.message });
    }
    return undefined;
  }

  /** Puts the run back in its queue after `delayMs`, under `owner`'s lease. */
  async requeue(run: RunKey, owner: string, delayMs: number): Promise<void> {
    const { runStore } = this.deps;
    const requeued = await this.#write(run, () => runStore.requeue(run.tenantId, run.runId, owner, delayMs));
    if (requeued.kind === 'err' && requeued.error.code !== 'run-lease-lost') {
      this.deps.logger.error('could not requeue a run', { runId: run.runId, error: requeued.error.message });
    }
  }

  /** Stops retrying (a shutdown past its grace): held transitions are dropped and left to the lease sweep. */
  stop(): void {
    this.#stop.abort();
  }

  async #write<T>(run: RunKey, attempt: () => Promise<Result<T, RunStoreError>>): Promise<Result<T, RunStoreError>> {
    const key = `${run.tenantId}|${run.runId}`;
    const result = await retryStoreWrite(attempt, this.#plan, this.#stop.signal, (error, tries) => {
      this.deps.onStoreFailure();
      if (tries === 1) this.#hold(key, error);
    });
    if (this.#pending.delete(key)) this.#release(run, result);
    return result;
  }

  #hold(key: string, error: RunStoreError): void {
    this.#pending.add(key);
    if (this.#episode === undefined) {
      this.#episode = { since: Date.now(), runs: 0, lost: 0 };
      this.deps.logger.warn('recording run outcomes is failing: holding them in memory and retrying', {
        error: error.message,
        retryMs: this.deps.retryMs,
      });
    }
    this.#episode.runs++;
  }

  #release(run: RunKey, result: Result<unknown, RunStoreError>): void {
    const episode = this.#episode;
    if (episode === undefined) return;
    if (result.kind === 'err' && result.error.code === 'run-store-error') {
      episode.lost++;
      this.deps.logger.error('gave up recording a run outcome: the run store stayed unreachable', {
        runId: run.runId,
        error: result.error.message,
      });
    }
    if (this.#pending.size > 0) return;
    this.#episode = undefined;
    this.deps.logger.warn('recorded the held outcomes once the run store was back', {
      runs: episode.runs,
      lost: episode.lost,
      heldMs: Date.now() - episode.since,
    });
  }
}
