import type {
  GuardrailDescriptor,
  RunCheckBinding,
  RunError,
  RunHandlerBinding,
  RunOutcome,
  RunRecord,
  RunStore,
  RunViolation,
} from '@kindgi/bindings';
import type { PackTransportError } from '@kindgi/protocol';
import type { ApiError } from '../errors/api-error.js';
import { apiErrorFromPack, apiErrorFromTransport } from '../errors/pack-errors.js';
import { runGuardrailCheck } from './guardrail-check.js';
import { must } from './store-result.js';

/** What one execution attempt needs besides the run record. */
export interface RunCallInput {
  requestId: string;
  deadlineMs?: number | undefined;
  guardrails: GuardrailDescriptor[];
}

/** One attempt's result: a terminal outcome, or "the pack did not run it" (a 503) with its Retry-After. */
export type AttemptResult =
  | { kind: 'outcome'; outcome: RunOutcome }
  | { kind: 'unavailable'; error: PackTransportError };

/** A REST error as a run stores it: the same `{code, message, details}` for every kind of failure. */
export function runError(error: ApiError): RunError {
  return error.details === undefined
    ? { code: error.code, message: error.message }
    : { code: error.code, message: error.message, details: error.details };
}

/** Calls the pack for a claimed run, then evaluates its guardrails on the output. */
export async function attemptRun(
  deps: { runStore: RunStore; runHandler: RunHandlerBinding; runCheck: RunCheckBinding | undefined },
  run: RunRecord,
  input: RunCallInput,
  signal: AbortSignal,
): Promise<AttemptResult> {
  // No pack hint: the run may execute long after it was accepted, on another server or after the packs were
  // redeployed, so the router resolves (toolId, version) against the packs serving now. `RunJob.packId` is
  // only the queue the run waited in.
  const reply = await deps.runHandler({
    tool: run.version === undefined ? { id: run.toolId } : { id: run.toolId, version: run.version },
    input: run.input,
    ctx: { tenantId: run.tenantId, runId: run.runId, requestId: input.requestId },
    signal,
    ...(input.deadlineMs === undefined ? {} : { deadlineMs: input.deadlineMs }),
  });
  if (reply.kind === 'err') {
    if (reply.error.code === 'pack-unavailable') return { kind: 'unavailable', error: reply.error };
    return failed(runError(apiErrorFromTransport(reply.error)));
  }
  const message = reply.value;
  // Every pack error, a deadline included, is stored in the REST shape: never the protocol message.
  if (message.kind === 'error') return failed(runError(apiErrorFromPack(message)));
  if (message.kind !== 'result') {
    return failed({ code: 'pack-protocol-error', message: `The pack answered a tool call with '${message.kind}'.` });
  }
  return { kind: 'outcome', outcome: await guard(deps, run, input, message.output, signal) };
}

function failed(error: RunError): AttemptResult {
  return { kind: 'outcome', outcome: { status: 'failed', error } };
}

/** Evaluates the run's guardrails on its output: a failed `halt` fails the run and drops the output. */
async function guard(
  deps: { runStore: RunStore; runCheck: RunCheckBinding | undefined },
  run: RunRecord,
  input: RunCallInput,
  output: unknown,
  signal: AbortSignal,
): Promise<RunOutcome> {
  const violations: RunViolation[] = [];
  const runCheck = deps.runCheck;
  if (runCheck === undefined || input.guardrails.length === 0) return { status: 'completed', output, violations };
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
    must(await deps.runStore.appendEvent(run.tenantId, run.runId, { kind: 'guardrail.violation', data: violation }));
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
