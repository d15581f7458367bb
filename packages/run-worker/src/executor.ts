import { randomUUID } from 'node:crypto';
import type {
  ApiLogger,
  ApprovalRecord,
  ClaimedRun,
  GuardrailDescriptor,
  PackCaller,
  RunJob,
  RunRecord,
  RunStore,
} from '@kindgi/bindings';
import { ok, type Result } from '@kindgi/protocol';
import { type AgentTurnRunner, attemptAgentRun } from './agent-run.js';
import type { RunWorkerError } from './errors.js';
import { DEFAULT_RUN_EXECUTION, type RunExecutionOptions, tenantQueueLimit } from './execution-options.js';
import type { DescribeFailure } from './pack-reply.js';
import { planRequeue } from './requeue-plan.js';
import { attemptRun } from './run-call.js';
import { LocalRunEnds, watchRunEnd } from './run-end.js';
import { keepRunLeased } from './run-lease.js';
import { RunRecorder } from './run-recorder.js';

/** What a run needs to start; guardrails are already resolved to their descriptors. */
export interface StartRunInput {
  tenantId: string;
  requestId: string;
  /** The tool; for an agent run, the agent's id. */
  toolId: string;
  /** An agent run: executed by `runTurn`. */
  agent?: { agentId: string; dryRun?: boolean };
  /** The queue the run waits in (the tool's pack, or the agent's). */
  packId: string;
  version?: string | undefined;
  input: unknown;
  guardrails: GuardrailDescriptor[];
  deadlineMs?: number | undefined;
  /**
   * The caller will wait (`done`, which it must then call): the run is watched from before its enqueue, so
   * the wait starts from the queued record instead of reading it back.
   */
  wait?: boolean;
}

/** A queued run, and how to wait for its end. */
export interface StartedRun {
  run: RunRecord;
  /** Settles once the run is terminal. */
  done: () => Promise<Result<RunRecord, RunWorkerError>>;
}

/** What an executor works with. */
export interface RunExecutorDeps {
  runStore: RunStore;
  /** The app's pack-call pipeline. */
  callPack: PackCaller;
  /** Whether checks can run (the app has a check binding): without, a run's guardrails are skipped. */
  checks: boolean;
  /** How a failed pack call or check reads in a run record (`createApp`: the REST error). */
  describeFailure: DescribeFailure;
  logger: ApiLogger;
  now: () => Date;
  options?: Partial<RunExecutionOptions>;
  /** The packs this process serves, asked at every claim (they may change); any pack when absent. */
  servedPacks?: () => readonly string[];
  /** Runs agent turns (built by the app from the agent kernel); without it this executor claims no agent runs. */
  runTurn?: AgentTurnRunner;
}

const INTERRUPTED =
  'The server executing the run stopped before it finished (its lease expired); it may have partly run.';

/**
 * Executes runs from the run store's queue: claims one (a lease) of a pack this process serves, heartbeats
 * it, calls the pack, evaluates guardrails, and records the outcome only while it holds the run. A call the
 * pack is known not to have run (refused: `pack-unavailable`) puts the run back in its queue for the
 * `Retry-After` it gave; any other failure may have run the tool and ends the run. Recording survives a
 * store outage (`RunRecorder`), and after one the executor waits a lease before sweeping expired leases, so
 * live executors on every server renew theirs first. Any number of executors may share one store.
 */
export class RunExecutor {
  readonly #owner = `executor-${randomUUID()}`;
  readonly #active = new Map<string, { packId: string; controller: AbortController; done: Promise<void> }>();
  readonly #options: RunExecutionOptions;
  #stopped = false;
  #wake: (() => void) | undefined;
  #pending = true;
  #storeFailing = false;
  /** When a store call last failed: expired leases are swept only a lease after it. */
  #lastStoreFailure = Number.NEGATIVE_INFINITY;
  readonly #recorder: RunRecorder;
  readonly #ends: LocalRunEnds;
  #unwatchQueue: (() => void) | undefined;
  #pump: Promise<void> | undefined;

  constructor(private readonly deps: RunExecutorDeps) {
    this.#options = { ...DEFAULT_RUN_EXECUTION, ...deps.options };
    this.#recorder = new RunRecorder({
      runStore: deps.runStore,
      logger: deps.logger,
      retryMs: this.#options.recordRetryMs,
      leaseMs: this.#options.leaseMs,
      onStoreFailure: () => this.#noteStoreFailure(),
    });
    this.#ends = new LocalRunEnds(deps.runStore, this.#options.pollMs, (run) =>
      this.#active.has(keyOf(run.tenantId, run.runId)),
    );
  }

  /**
   * Starts taking runs from the store's queue (idempotent; the first `start` does it too). A process sharing
   * its store with others calls it at boot, so it executes runs any of them accepted.
   */
  work(): void {
    if (this.#pump !== undefined || this.#stopped) return;
    this.#unwatchQueue = this.deps.runStore.watchQueue(() => this.#poke());
    this.#pump = this.#loop();
  }

  /**
   * Queues the run (`run-queue-full` when its pack's queue, or the tenant's share of it, is full); `done`
   * settles when it ends.
   */
  async start(input: StartRunInput): Promise<Result<StartedRun, RunWorkerError>> {
    const at = this.deps.now().toISOString();
    const record: RunRecord = {
      runId: `run-${randomUUID()}`,
      tenantId: input.tenantId,
      toolId: input.toolId,
      status: 'queued',
      input: input.input,
      guardrails: input.guardrails.map((g) => g.id),
      violations: [],
      createdAt: at,
      updatedAt: at,
    };
    if (input.version !== undefined) record.version = input.version;
    if (input.agent !== undefined) record.agentId = input.agent.agentId;
    this.work();
    const key = { tenantId: record.tenantId, runId: record.runId };
    const watch = input.wait === true ? this.#ends.watch(key) : undefined;
    const job: RunJob = { packId: input.packId, requestId: input.requestId, guardrails: input.guardrails };
    if (input.agent !== undefined) job.agent = input.agent.dryRun ? { dryRun: true } : {};
    const queued = await this.deps.runStore.enqueue(
      record,
      input.deadlineMs === undefined ? job : { ...job, deadlineMs: input.deadlineMs },
      { maxQueued: this.#options.maxQueuedPerPack, maxQueuedPerTenant: tenantQueueLimit(this.#options) },
    );
    if (queued.kind === 'err') {
      watch?.stop();
      return queued;
    }
    const run = queued.value;
    return ok({ run, done: () => (watch === undefined ? this.waitForEnd(run.tenantId, run.runId) : watch.done(run)) });
  }

  /** Cancels a queued or running run on any server: `run-not-found`, or `run-already-terminal` when done. */
  async cancel(tenantId: string, runId: string): Promise<Result<RunRecord, RunWorkerError>> {
    const cancelled = await this.deps.runStore.finish(tenantId, runId, { status: 'cancelled' });
    if (cancelled.kind === 'ok') this.#active.get(keyOf(tenantId, runId))?.controller.abort();
    return cancelled;
  }

  /** The run once it is terminal (notified by the store, re-read every `pollMs`). */
  waitForEnd(tenantId: string, runId: string): Promise<Result<RunRecord, RunWorkerError>> {
    return watchRunEnd(this.deps.runStore, { tenantId, runId }, this.#options.pollMs).done();
  }

  /**
   * For a shutdown: claims nothing more, waits up to `timeoutMs` for the runs this process is executing,
   * then cancels the ones still running (journaled as `run.cancelled`). Queued runs stay queued.
   */
  async drain(timeoutMs: number): Promise<{ finished: number; cancelled: number }> {
    this.#stopped = true;
    this.#unwatchQueue?.();
    this.#poke();
    await this.#pump;
    const pending = [...this.#active.values()];
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<true>((resolve) => {
      timer = setTimeout(() => resolve(true), timeoutMs);
    });
    const settled = Promise.allSettled(pending.map((active) => active.done)).then(() => false as const);
    const timedOut = await Promise.race([settled, expired]);
    clearTimeout(timer);
    if (!timedOut) return { finished: pending.length, cancelled: 0 };
    // Past the grace, outcomes still waiting for the store are dropped: their leases then run out.
    this.#recorder.stop();
    let cancelled = 0;
    for (const [key, active] of [...this.#active.entries()]) {
      const [tenantId, runId] = splitKey(key);
      // A refusal means it finished while the others were being cancelled.
      if ((await this.cancel(tenantId, runId)).kind === 'ok') cancelled++;
      await active.done.catch(() => undefined);
    }
    return { finished: pending.length - cancelled, cancelled };
  }

  #poke(): void {
    this.#pending = true;
    this.#wake?.();
  }

  /** Claims runs while this process has room, then sleeps until a queue notification or `pollMs`. */
  async #loop(): Promise<void> {
    let lastPoll = 0;
    while (!this.#stopped) {
      if (Date.now() - lastPoll >= this.#options.pollMs) {
        lastPoll = Date.now();
        // Claims are polled through an outage; sweeps wait a lease after it, so live executors renew first.
        if (Date.now() - this.#lastStoreFailure >= this.#options.leaseMs) {
          await this.#expireLeases().catch(() => undefined);
        }
        this.#pending = true;
      }
      if (this.#pending) {
        this.#pending = false;
        try {
          while (!this.#stopped && (await this.#claimOne())) {}
        } catch (thrown) {
          this.deps.logger.error('the run queue failed', { error: String(thrown) });
        }
      }
      if (this.#stopped || this.#pending) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.#options.pollMs);
        timer.unref();
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#wake = undefined;
    }
  }

  #noteStoreFailure(): void {
    this.#lastStoreFailure = Date.now();
  }

  async #expireLeases(): Promise<void> {
    // The runs this process is executing or still recording are alive, whatever their lease says.
    const keep = [...this.#active.keys()].map(splitKey).map(([tenantId, runId]) => ({ tenantId, runId }));
    const expired = await this.deps.runStore.expireLeases(INTERRUPTED, { keep });
    if (expired.kind === 'err') this.#noteStoreFailure();
    if (expired.kind === 'ok' && expired.value.length > 0) {
      this.deps.logger.warn('runs interrupted: their executor stopped renewing its lease', {
        runIds: expired.value.map((run) => run.runId),
      });
    }
  }

  async #claimOne(): Promise<boolean> {
    if (this.#options.concurrencyPerPack <= 0) return false;
    const counts = new Map<string, number>();
    for (const active of this.#active.values()) counts.set(active.packId, (counts.get(active.packId) ?? 0) + 1);
    const busyPacks = [...counts].filter(([, n]) => n >= this.#options.concurrencyPerPack).map(([pack]) => pack);
    const servedPacks = this.deps.servedPacks?.();
    // Without a turn runner (no models) agent runs stay queued for a server that can run them.
    const agents = this.deps.runTurn === undefined ? { agents: false } : {};
    const request = { owner: this.#owner, leaseMs: this.#options.leaseMs, busyPacks, ...agents };
    const claimed = await this.deps.runStore.claim(servedPacks === undefined ? request : { ...request, servedPacks });
    if (claimed.kind === 'err') {
      this.#noteStoreFailure();
      // Logged when the store starts failing, not on every poll of an outage.
      if (!this.#storeFailing) this.deps.logger.error('could not claim a run', { error: claimed.error.message });
      this.#storeFailing = true;
      return false;
    }
    if (this.#storeFailing) this.deps.logger.warn('the run queue is reachable again', {});
    this.#storeFailing = false;
    if (claimed.value === null) return false;
    const { run, job } = claimed.value;
    const key = keyOf(run.tenantId, run.runId);
    const controller = new AbortController();
    const entry = { packId: job.packId, controller, done: Promise.resolve() };
    this.#active.set(key, entry);
    let ended: RunRecord | undefined;
    entry.done = this.#execute(claimed.value, controller)
      .then((record) => {
        ended = record;
      })
      .finally(() => {
        this.#active.delete(key);
        // A waiter here takes the end this executor recorded without reading it back (or reads, if none).
        this.#ends.handOff(run, ended);
        this.#poke();
      });
    return true;
  }

  /** Executes the run; returns its end (or its `waiting` at a gate) when this executor recorded one. */
  async #execute(claimed: ClaimedRun, controller: AbortController): Promise<RunRecord | undefined> {
    const { run, job } = claimed;
    const { runStore } = this.deps;
    const release = keepRunLeased(run, {
      runStore,
      owner: this.#owner,
      leaseMs: this.#options.leaseMs,
      lost: () => controller.abort(),
      onStoreFailure: () => this.#noteStoreFailure(),
    });
    try {
      const result =
        job.agent !== undefined
          ? await attemptAgentRun(this.deps, claimed, controller.signal)
          : await attemptRun(this.deps, run, job, controller.signal);
      // A failed journal write ends the run as an unexpected failure would, aborted or not.
      if (result.kind === 'store-failed') {
        return await this.#failUnexpectedly(run, `the run store failed: ${result.error.message}`);
      }
      if (controller.signal.aborted) return undefined;
      if (result.kind === 'suspended') return await this.#suspend(run, result.approval, result.state);
      if (result.kind === 'outcome') return await this.#recorder.finish(run, result.outcome, this.#owner);
      const plan = planRequeue(result.error, run.createdAt, this.deps.now(), this.#options.queueTimeoutMs);
      if (plan.kind === 'give-up') return await this.#recorder.finish(run, plan.outcome, this.#owner);
      await this.#recorder.requeue(run, this.#owner, plan.delayMs);
      // Looks again when the delay is over rather than at the next poll.
      setTimeout(() => this.#poke(), plan.delayMs).unref();
    } catch (thrown) {
      return await this.#failUnexpectedly(run, String(thrown));
    } finally {
      release();
    }
    return undefined;
  }

  /** Parks the run at its approval gate; a lost lease means a cancel ended it meanwhile, which stands. */
  async #suspend(run: RunRecord, approval: ApprovalRecord, state: unknown): Promise<RunRecord | undefined> {
    const parked = await this.deps.runStore.suspend(run.tenantId, run.runId, this.#owner, approval, state);
    if (parked.kind === 'ok') return parked.value;
    if (parked.error.code === 'run-lease-lost') return undefined;
    return this.#failUnexpectedly(run, `could not suspend the run: ${parked.error.message}`);
  }

  async #failUnexpectedly(run: RunRecord, cause: string): Promise<RunRecord | undefined> {
    this.deps.logger.error('run failed unexpectedly', { runId: run.runId, error: cause });
    const error = { code: 'internal-server-error', message: 'The run failed unexpectedly.' };
    return this.#recorder.finish(run, { status: 'failed', error }, this.#owner);
  }
}

function keyOf(tenantId: string, runId: string): string {
  return `${tenantId}|${runId}`;
}

// Run ids never contain '|'; a tenant id might, so the key splits at its last one.
function splitKey(key: string): [string, string] {
  const at = key.lastIndexOf('|');
  return [key.slice(0, at), key.slice(at + 1)];
}
