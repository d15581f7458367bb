import {
  didNotRun,
  type GuardrailDescriptor,
  type PackCaller,
  type RunError,
  type RunOutcome,
  type RunRecord,
  type RunStore,
  type RunStoreError,
  type RunViolation,
  toRunCheck,
} from '@kindgi/bindings';
import type { PackTransportError } from '@kindgi/protocol';
import { checkGuardrail } from './guardrail-check.js';
import { type DescribeFailure, readPackReply } from './pack-reply.js';

/** What one execution attempt needs besides the run record. */
export interface RunCallInput {
  requestId: string;
  deadlineMs?: number | undefined;
  guardrails: GuardrailDescriptor[];
}

/** What an attempt needs: the store (violations are journaled), the pipeline, and whether checks can run. */
export interface RunCallDeps {
  runStore: RunStore;
  callPack: PackCaller;
  /** False when the app has no check binding: a run's guardrails are then not evaluated. */
  checks: boolean;
  /** How a failed call reads in the run record. */
  describeFailure: DescribeFailure;
}

/**
 * One attempt's result: a terminal outcome, "the pack did not run it" (a refusal) with its Retry-After, or a
 * journal write the store failed (the run then fails as the executor's own error).
 */
export type AttemptResult =
  | { kind: 'outcome'; outcome: RunOutcome }
  | { kind: 'unavailable'; error: PackTransportError }
  | { kind: 'store-failed'; error: RunStoreError };

/** Calls the pack for a claimed run, then evaluates its guardrails on the output. */
export async function attemptRun(
  deps: RunCallDeps,
  run: RunRecord,
  input: RunCallInput,
  signal: AbortSignal,
): Promise<AttemptResult> {
  // No pack hint: the run may execute long after it was accepted, on another server or after the packs were
  // redeployed, so the router resolves (toolId, version) against the packs serving now. `RunJob.packId` is
  // only the queue the run waited in.
  const reply = await deps.callPack({
    kind: 'invoke',
    tool: run.version === undefined ? { id: run.toolId } : { id: run.toolId, version: run.version },
    input: run.input,
    ctx: { tenantId: run.tenantId, runId: run.runId, requestId: input.requestId },
    signal,
    ...(input.deadlineMs === undefined ? {} : { deadlineMs: input.deadlineMs }),
  });
  // Only a call known not to have run goes back to the queue; one that was delivered and then failed, went
  // silent or passed its deadline may have run, so it ends here (failed) and is never sent again.
  if (reply.kind === 'err' && didNotRun(reply.error)) return { kind: 'unavailable', error: reply.error };
  // Every failure, a deadline included, is stored as the caller names it: never the protocol message.
  const answer = readPackReply(reply, 'result');
  if (answer.kind === 'err') return failed(deps.describeFailure(answer.error));
  return guard(deps, run, input, answer.value.output, signal);
}

function failed(error: RunError): AttemptResult {
  return { kind: 'outcome', outcome: { status: 'failed', error } };
}

/** Evaluates the run's guardrails on its output: a failed `halt` fails the run and drops the output. */
async function guard(
  deps: RunCallDeps,
  run: RunRecord,
  input: RunCallInput,
  output: unknown,
  signal: AbortSignal,
): Promise<AttemptResult> {
  const violations: RunViolation[] = [];
  const completed: AttemptResult = { kind: 'outcome', outcome: { status: 'completed', output, violations } };
  if (!deps.checks || input.guardrails.length === 0) return completed;
  const runCheck = toRunCheck(deps.callPack);
  const call = run.version === undefined ? { toolId: run.toolId } : { toolId: run.toolId, version: run.version };
  const trace = {
    runId: run.runId,
    tenantId: run.tenantId,
    userInput: run.input,
    output,
    toolCalls: [{ ...call, input: run.input }],
    toolResults: [{ ...call, output }],
    mode: 'runtime' as const,
  };
  for (const guardrail of input.guardrails) {
    const verdict = await checkGuardrail(runCheck, guardrail, trace, { signal });
    if (signal.aborted) return { kind: 'outcome', outcome: { status: 'cancelled' } };
    let reason: string | undefined;
    if (verdict.kind === 'err') {
      const error = deps.describeFailure(verdict.error);
      reason = `The check could not run: ${error.code}: ${error.message}`;
    } else if (!verdict.value.passed) reason = verdict.value.reason;
    else continue;
    const violation: RunViolation = {
      guardrailId: guardrail.id,
      checkId: guardrail.checkId,
      action: guardrail.action['on-violation'],
      severity: guardrail.severity,
    };
    if (reason !== undefined) violation.reason = reason;
    violations.push(violation);
    const journaled = await deps.runStore.appendEvent(run.tenantId, run.runId, {
      kind: 'guardrail.violation',
      data: violation,
    });
    if (journaled.kind === 'err') return { kind: 'store-failed', error: journaled.error };
    if (violation.action === 'halt') return halted(guardrail, reason, violations);
  }
  return completed;
}

/** A `halt` guardrail failed: the run fails with its violations so far, and its output is dropped. */
function halted(guardrail: GuardrailDescriptor, reason: string | undefined, violations: RunViolation[]): AttemptResult {
  const error: RunError = {
    code: 'guardrail-violation',
    message: `Guardrail '${guardrail.id}' halted the run${reason ? `: ${reason}` : ''}.`,
    details: { guardrailId: guardrail.id, checkId: guardrail.checkId },
  };
  return { kind: 'outcome', outcome: { status: 'failed', violations, error } };
}
