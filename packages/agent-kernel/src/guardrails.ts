import { type GuardrailDescriptor, type RunViolation, toRunCheck } from '@kindgi/bindings';
import type { RunTrace } from '@kindgi/protocol';
import { checkGuardrail } from '@kindgi/run-worker';
import { type AgentTurnError, turnError } from './errors.js';
import { failureCode } from './tool-policy.js';
import type { AgentKernelBindings, GuardrailEvaluationError, TurnEvent, TurnState } from './types.js';

/** What the guardrails made of a final answer. */
export interface GuardrailVerdicts {
  violations: RunViolation[];
  errors: GuardrailEvaluationError[];
  /** Set when a `halt` guardrail failed or could not be evaluated: the turn fails, the answer is dropped. */
  halted?: AgentTurnError;
}

/** True when the guardrail's scope covers this turn: `when` by mode, then `agents`, `flows`, `tenants`. */
export function inScope(guardrail: GuardrailDescriptor, state: TurnState): boolean {
  const scope = guardrail.scope ?? {};
  if (scope.when === 'ci-only' && state.mode !== 'ci') return false;
  if (scope.when === 'runtime-only' && state.mode !== 'runtime') return false;
  if (scope.tenants !== undefined && !scope.tenants.includes(state.tenantId)) return false;
  // `agents` and `flows` together mean either: this agent anywhere, or any agent in those flows.
  const byAgent = scope.agents?.includes(state.agentId);
  const byFlow = state.flowId !== undefined && scope.flows?.includes(state.flowId);
  if (scope.agents === undefined && scope.flows === undefined) return true;
  return byAgent === true || byFlow === true;
}

/** The turn as a check sees it (`RunTrace`). */
export function turnTrace(state: TurnState, answer: string): RunTrace {
  return {
    runId: state.runId,
    tenantId: state.tenantId,
    mode: state.mode,
    userInput: state.userInput,
    output: answer,
    toolCalls: state.toolCalls,
    toolResults: state.toolResults,
    modelCalls: state.modelCalls,
    agentId: state.agentId,
  };
}

/**
 * Evaluates every guardrail the agent lists, in scope, once, on the final answer: built-in checks in the
 * runtime, the others through the pack-call pipeline (`checkGuardrail`, the run worker's check path). A
 * check that cannot be evaluated is an error, not a violation; for a `halt` guardrail it fails the turn.
 */
export async function evaluateGuardrails(
  bindings: AgentKernelBindings,
  state: TurnState,
  answer: string,
  signal: AbortSignal,
  onEvent: (event: TurnEvent) => void,
): Promise<GuardrailVerdicts> {
  const verdicts: GuardrailVerdicts = { violations: [], errors: [] };
  const runCheck = toRunCheck(bindings.callPack);
  const trace = turnTrace(state, answer);
  for (const guardrail of state.guardrails.filter((g) => inScope(g, state))) {
    const action = guardrail.action['on-violation'];
    const base = { guardrailId: guardrail.id, checkId: guardrail.checkId, action };
    const verdict = await checkGuardrail(runCheck, guardrail, trace, { signal });
    if (verdict.kind === 'err') {
      // A check's own code stays as the pack sent it (`handler-throw`); `tool-error` is a tool's word.
      const error =
        verdict.error.kind === 'pack-error'
          ? { code: verdict.error.message.code, message: verdict.error.message.message }
          : failureCode(verdict.error);
      verdicts.errors.push({ ...base, ...error });
      onEvent({ kind: 'guardrail.result', ...base, error });
      if (action === 'halt') {
        verdicts.halted = turnError(
          'guardrail-evaluation-failed',
          `Guardrail "${guardrail.id}" could not be evaluated: ${error.code}: ${error.message}`,
          { ...base, code: error.code },
        ).error;
        return verdicts;
      }
      continue;
    }
    const { passed, reason } = verdict.value;
    onEvent({ kind: 'guardrail.result', ...base, passed, ...(reason !== undefined ? { reason } : {}) });
    if (passed) continue;
    const violation: RunViolation = { ...base, severity: guardrail.severity };
    if (reason !== undefined) violation.reason = reason;
    verdicts.violations.push(violation);
    if (action === 'halt') {
      verdicts.halted = turnError(
        'guardrail-violation',
        `Guardrail "${guardrail.id}" halted the turn${reason ? `: ${reason}` : ''}`,
        { ...base, violations: verdicts.violations },
      ).error;
      return verdicts;
    }
  }
  return verdicts;
}
