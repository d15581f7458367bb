import { randomUUID } from 'node:crypto';
import type {
  GuardrailDescriptor,
  RunCheckBinding,
  RunHandlerBinding,
  RunPatch,
  RunRecord,
  RunStore,
  RunViolation,
} from '@kindgi/bindings';
import type { ErrorMessage } from '@kindgi/protocol';
import { ApiError } from '../errors/api-error.js';
import { apiErrorFromTransport } from '../errors/pack-errors.js';
import type { ApiLogger } from '../logger.js';
import { runGuardrailCheck } from './guardrail-check.js';
import { must, TERMINAL_STATUSES } from './store-result.js';

/** What a run needs to start; guardrails are already resolved to their descriptors. */
export interface StartRunInput {
  tenantId: string;
  requestId: string;
  toolId: string;
  version?: string | undefined;
  input: unknown;
  guardrails: GuardrailDescriptor[];
  deadlineMs?: number | undefined;
}

interface ActiveRun {
  controller: AbortController;
  /** Set once the outcome is being written; a cancel arriving then waits and sees a terminal run. */
  finalizing: boolean;
  done: Promise<RunRecord>;
}

/**
 * Runs tools as recorded runs: journals `run.started`, calls the pack, evaluates the named guardrails on the
 * output, and journals the terminal event. Cancellation aborts the in-process call.
 */
export class RunExecutor {
  readonly #active = new Map<string, ActiveRun>();
  readonly #watchers = new Map<string, Set<() => void>>();

  constructor(
    private readonly deps: {
      runStore: RunStore;
      runHandler: RunHandlerBinding;
      runCheck: RunCheckBinding | undefined;
      logger: ApiLogger;
      now: () => Date;
    },
  ) {}

  /** Records the run and starts it; `done` settles with the finished record. */
  async start(input: StartRunInput): Promise<{ run: RunRecord; done: Promise<RunRecord> }> {
    const { runStore } = this.deps;
    const at = this.deps.now().toISOString();
    const record: RunRecord = {
      runId: `run-${randomUUID()}`,
      tenantId: input.tenantId,
      toolId: input.toolId,
      status: 'running',
      input: input.input,
      guardrails: input.guardrails.map((g) => g.id),
      violations: [],
      createdAt: at,
      updatedAt: at,
      startedAt: at,
    };
    if (input.version !== undefined) record.version = input.version;
    const run = must(await runStore.create(record));
    must(await runStore.appendEvent(run.tenantId, run.runId, { kind: 'run.started', data: run }));
    const controller = new AbortController();
    const active: ActiveRun = { controller, finalizing: false, done: Promise.resolve(run) };
    const key = keyOf(run.tenantId, run.runId);
    this.#active.set(key, active);
    this.#notify(key);
    active.done = this.#execute(run, input, active).finally(() => this.#active.delete(key));
    return { run, done: active.done };
  }

  /** Cancels a running run: 404 when unknown, 409 `run-already-terminal` when it has finished. */
  async cancel(tenantId: string, runId: string): Promise<RunRecord> {
    const key = keyOf(tenantId, runId);
    const run = must(await this.deps.runStore.get(tenantId, runId));
    if (run === null) throw new ApiError('run-not-found', `No run '${runId}'.`, { runId });
    const active = this.#active.get(key);
    if (active?.finalizing) await active.done;
    if (TERMINAL_STATUSES.has(run.status) || active?.finalizing) {
      throw new ApiError('run-already-terminal', `Run '${runId}' has already finished.`, { runId });
    }
    active?.controller.abort();
    const at = this.deps.now().toISOString();
    const cancelled = must(await this.deps.runStore.update(tenantId, runId, { status: 'cancelled', finishedAt: at }));
    must(await this.deps.runStore.appendEvent(tenantId, runId, { kind: 'run.cancelled', data: cancelled }));
    this.#notify(key);
    return cancelled;
  }

  /**
   * For a shutdown: waits up to `timeoutMs` for the runs this process is executing, then cancels the ones
   * still running (journaled as `run.cancelled`), so no run is left `running` in the store.
   */
  async drain(timeoutMs: number): Promise<{ finished: number; cancelled: number }> {
    const pending = [...this.#active.values()];
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<true>((resolve) => {
      timer = setTimeout(() => resolve(true), timeoutMs);
    });
    const settled = Promise.allSettled(pending.map((active) => active.done)).then(() => false as const);
    const timedOut = await Promise.race([settled, expired]);
    clearTimeout(timer);
    if (!timedOut) return { finished: pending.length, cancelled: 0 };
    const remaining = [...this.#active.entries()];
    let cancelled = 0;
    for (const [key, active] of remaining) {
      const [tenantId, runId] = splitKey(key);
      try {
        await this.cancel(tenantId, runId);
        cancelled++;
      } catch {
        // It finished while the others were being cancelled.
      }
      await active.done.catch(() => undefined);
    }
    return { finished: pending.length - cancelled, cancelled };
  }

  /** Calls `onEvent` whenever this process appends to the run's journal; returns the unsubscribe. */
  watch(tenantId: string, runId: string, onEvent: () => void): () => void {
    const key = keyOf(tenantId, runId);
    let set = this.#watchers.get(key);
    if (set === undefined) {
      set = new Set();
      this.#watchers.set(key, set);
    }
    set.add(onEvent);
    return () => {
      set.delete(onEvent);
      if (set.size === 0) this.#watchers.delete(key);
    };
  }

  #notify(key: string): void {
    for (const onEvent of this.#watchers.get(key) ?? []) onEvent();
  }

  async #execute(run: RunRecord, input: StartRunInput, active: ActiveRun): Promise<RunRecord> {
    const { signal } = active.controller;
    let patch: RunPatch;
    try {
      patch = await this.#outcome(run, input, signal);
    } catch (thrown) {
      this.deps.logger.error('run failed unexpectedly', { runId: run.runId, error: String(thrown) });
      patch = { status: 'failed', error: { code: 'internal-server-error', message: 'The run failed unexpectedly.' } };
    }
    if (signal.aborted) return run;
    active.finalizing = true;
    try {
      const current = must(await this.deps.runStore.get(run.tenantId, run.runId));
      if (current === null || TERMINAL_STATUSES.has(current.status)) return current ?? run;
      const finished = must(
        await this.deps.runStore.update(run.tenantId, run.runId, {
          ...patch,
          finishedAt: this.deps.now().toISOString(),
        }),
      );
      const kind = finished.status === 'completed' ? 'run.completed' : 'run.failed';
      must(await this.deps.runStore.appendEvent(run.tenantId, run.runId, { kind, data: finished }));
      this.#notify(keyOf(run.tenantId, run.runId));
      return finished;
    } catch (thrown) {
      this.deps.logger.error('could not record the end of a run', { runId: run.runId, error: String(thrown) });
      return run;
    }
  }

  async #outcome(run: RunRecord, input: StartRunInput, signal: AbortSignal): Promise<RunPatch> {
    const reply = await this.deps.runHandler({
      tool: input.version === undefined ? { id: input.toolId } : { id: input.toolId, version: input.version },
      input: input.input,
      ctx: { tenantId: run.tenantId, runId: run.runId, requestId: input.requestId },
      signal,
      ...(input.deadlineMs === undefined ? {} : { deadlineMs: input.deadlineMs }),
    });
    if (reply.kind === 'err') return { status: 'failed', error: wireError(apiErrorFromTransport(reply.error)) };
    const message = reply.value;
    if (message.kind === 'error') return { status: 'failed', error: withoutStack(message) };
    if (message.kind !== 'result') {
      return {
        status: 'failed',
        error: { code: 'pack-protocol-error', message: `The pack answered a tool call with '${message.kind}'.` },
      };
    }
    return this.#guard(run, input, message.output, signal);
  }

  /** Evaluates the run's guardrails on its output: a failed `halt` fails the run and drops the output. */
  async #guard(run: RunRecord, input: StartRunInput, output: unknown, signal: AbortSignal): Promise<RunPatch> {
    const violations: RunViolation[] = [];
    const runCheck = this.deps.runCheck;
    if (runCheck === undefined || input.guardrails.length === 0) return { status: 'completed', output, violations };
    const call =
      input.version === undefined ? { toolId: input.toolId } : { toolId: input.toolId, version: input.version };
    const trace = {
      runId: run.runId,
      tenantId: run.tenantId,
      userInput: input.input,
      output,
      toolCalls: [{ ...call, input: input.input }],
      toolResults: [{ ...call, output }],
      mode: 'runtime' as const,
    };
    for (const guardrail of input.guardrails) {
      const outcome = await runGuardrailCheck(runCheck, guardrail, trace, { signal });
      if (signal.aborted) return { status: 'cancelled' };
      let reason: string | undefined;
      if (outcome.kind === 'err') reason = `The check could not run: ${outcome.error.code}: ${outcome.error.message}`;
      else if (!outcome.value.passed) reason = outcome.value.reason;
      else continue;
      const violation: RunViolation = {
        guardrailId: guardrail.id,
        checkId: guardrail.checkId,
        action: guardrail.action['on-violation'],
        severity: guardrail.severity,
      };
      if (reason !== undefined) violation.reason = reason;
      violations.push(violation);
      must(
        await this.deps.runStore.appendEvent(run.tenantId, run.runId, { kind: 'guardrail.violation', data: violation }),
      );
      this.#notify(keyOf(run.tenantId, run.runId));
      if (violation.action === 'halt') {
        return {
          status: 'failed',
          violations,
          error: {
            code: 'guardrail-violation',
            message: `Guardrail '${guardrail.id}' halted the run${reason ? `: ${reason}` : ''}.`,
            details: { guardrailId: guardrail.id, checkId: guardrail.checkId },
          },
        };
      }
    }
    return { status: 'completed', output, violations };
  }
}

/** A pack error as recorded on the run: the thrown value's stack stays in the pack's logs. */
function withoutStack(message: ErrorMessage): ErrorMessage {
  const cause = message.cause;
  if (cause !== null && typeof cause === 'object' && !Array.isArray(cause) && 'stack' in cause) {
    const { stack: _stack, ...rest } = cause;
    return { ...message, cause: rest as ErrorMessage['cause'] };
  }
  return message;
}

function keyOf(tenantId: string, runId: string): string {
  return `${tenantId}|${runId}`;
}

// Run ids never contain '|'; a tenant id might, so the key splits at its last one.
function splitKey(key: string): [string, string] {
  const at = key.lastIndexOf('|');
  return [key.slice(0, at), key.slice(at + 1)];
}

function wireError(error: ApiError): { code: string; message: string; details?: Record<string, unknown> } {
  return error.details === undefined
    ? { code: error.code, message: error.message }
    : { code: error.code, message: error.message, details: error.details };
}
