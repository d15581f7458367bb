import { randomUUID } from 'node:crypto';
import type { ModelToolCall } from '@kindgi/bindings';
import { ok, type Result } from '@kindgi/protocol';
import { type AgentTurnError, turnError } from './errors.js';
import { checkTurnInput, resolveTurn } from './resolve.js';
import type { StepContext } from './tool-step.js';
import { continueTurn } from './turn-loop.js';
import type { AgentKernelBindings, AgentTurnInput, TurnEvent, TurnOutcome, TurnState } from './types.js';

function stepContext(
  bindings: AgentKernelBindings,
  signal: AbortSignal,
  onEvent: (event: TurnEvent) => void,
): StepContext {
  return { bindings, signal, onEvent, newId: bindings.newId ?? randomUUID };
}

/**
 * Runs one agent turn: resolves the agent, its guardrails (all must exist before the model is called), its
 * tools and model; then model calls and tool calls until a final answer, which its guardrails judge. Never
 * throws: a failure is an `AgentTurnError`; a turn may also end `suspended` (an approval gate) or
 * `dry-run-stopped`.
 */
export async function runAgentTurn(
  bindings: AgentKernelBindings,
  input: AgentTurnInput,
): Promise<Result<TurnOutcome, AgentTurnError>> {
  try {
    const checked = checkTurnInput(input);
    if (checked.kind === 'err') return checked;
    const state = await resolveTurn(bindings, input);
    if (state.kind === 'err') return state;
    return await continueTurn(stepContext(bindings, input.signal, input.onEvent), state.value);
  } catch (thrown) {
    // A binding that broke its own promise not to throw: the turn fails, the caller stays up.
    return turnError(
      'turn-failed',
      `The turn failed unexpectedly: ${thrown instanceof Error ? thrown.message : String(thrown)}`,
    );
  }
}

/** A decision on a suspended turn's approval request. */
export interface ApprovalDecision {
  approvalId: string;
  decision: 'approve' | 'deny';
  reason?: string;
}

/** What resuming a suspended turn takes: its recorded state (as JSON came back from a store) and the decision. */
export interface ResumeTurnInput {
  state: TurnState;
  decision: ApprovalDecision;
  signal: AbortSignal;
  onEvent: (event: TurnEvent) => void;
}

function denialAnswer(decision: ApprovalDecision): string {
  const why = decision.reason ? `: ${decision.reason.slice(0, 1_000)}` : '';
  return JSON.stringify({ error: { code: 'tool-denied', message: `The call was denied${why}` } });
}

/** The recorded state with the decision applied: the approval settled, a denied call answered to the model. */
function decided(input: ResumeTurnInput): Result<TurnState, AgentTurnError> {
  const state = structuredClone(input.state);
  const approval = state?.v === 1 ? state.pending?.approval : undefined;
  if (!approval || approval.approvalId !== input.decision.approvalId) {
    return turnError('turn-input-invalid', `The turn waits for no approval "${input.decision.approvalId}"`);
  }
  const pending = state.pending as NonNullable<TurnState['pending']>;
  delete pending.approval;
  const { decision, reason } = input.decision;
  const { approvalId, toolId, toolCallId, version } = approval;
  input.onEvent({
    kind: 'approval.completed',
    approvalId,
    toolId,
    decision,
    ...(reason !== undefined ? { reason } : {}),
  });
  if (decision === 'approve') {
    state.approved.push(toolId);
    return ok(state);
  }
  state.denied.push(toolId);
  const traced = { toolCallId, toolId, toolName: toolId, version, arguments: approval.arguments };
  state.toolCalls.push(traced);
  input.onEvent({ kind: 'tool.call', call: traced });
  const result = { toolCallId, toolId, error: { code: 'tool-denied', message: 'The call was denied' } };
  state.toolResults.push(result);
  input.onEvent({ kind: 'tool.result', result, shownToModel: true });
  if (pending.calls.some((call: ModelToolCall) => call.id === toolCallId)) {
    pending.answered[toolCallId] = denialAnswer(input.decision);
  }
  return ok(state);
}

/**
 * Continues a suspended turn from its recorded state: `approve` lets that tool run (and its later calls in
 * this turn); `deny` answers the call to the model as denied (and any later call of that tool).
 */
export async function resumeAgentTurn(
  bindings: AgentKernelBindings,
  input: ResumeTurnInput,
): Promise<Result<TurnOutcome, AgentTurnError>> {
  try {
    const state = decided(input);
    if (state.kind === 'err') return state;
    return await continueTurn(stepContext(bindings, input.signal, input.onEvent), state.value);
  } catch (thrown) {
    return turnError(
      'turn-failed',
      `The turn failed unexpectedly: ${thrown instanceof Error ? thrown.message : String(thrown)}`,
    );
  }
}
