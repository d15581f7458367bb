import { err, ok, type Result } from '@kindgi/protocol';
import { type AgentTurnError, turnError } from './errors.js';
import { evaluateGuardrails } from './guardrails.js';
import { callModel, turnUsage } from './model-step.js';
import { type StepContext, settleToolCalls } from './tool-step.js';
import type { TurnOutcome, TurnState } from './types.js';

function cancelled(): { kind: 'err'; error: AgentTurnError } {
  return turnError('turn-cancelled', 'The turn was cancelled');
}

/** The final answer: guardrails, then the outcome (a `halt` that failed drops the answer). */
async function finish(
  ctx: StepContext,
  state: TurnState,
  answer: string,
): Promise<Result<TurnOutcome, AgentTurnError>> {
  const verdicts = await evaluateGuardrails(ctx.bindings, state, answer, ctx.signal, ctx.onEvent);
  if (ctx.signal.aborted) return cancelled();
  if (verdicts.halted) return err(verdicts.halted);
  state.messages.push({ role: 'assistant', content: answer });
  return ok({
    status: 'completed',
    answer,
    violations: verdicts.violations,
    guardrailErrors: verdicts.errors,
    usage: turnUsage(state),
    modelCalls: state.modelCalls,
    conversation: state.messages.filter((message) => message.role !== 'system'),
  });
}

/**
 * Runs a turn from its state until a final answer, a suspension, a dry run's stop or a failure: tool calls
 * pending first (a resumed turn has some), then model calls, each answer's tool calls settled before the
 * next, within the agent's step and tool-call limits.
 */
export async function continueTurn(ctx: StepContext, state: TurnState): Promise<Result<TurnOutcome, AgentTurnError>> {
  for (;;) {
    if (ctx.signal.aborted) return cancelled();
    if (state.pending) {
      const step = await settleToolCalls(ctx, state);
      if (step.kind === 'failed') return err(step.error);
      if (step.kind === 'outcome') return ok(step.outcome);
      continue;
    }
    if (state.modelCalls.length >= state.maxSteps) {
      return turnError(
        'agent-step-limit',
        `The turn reached its limit of ${state.maxSteps} model calls without a final answer`,
        { maxSteps: state.maxSteps },
      );
    }
    const response = await callModel(ctx.bindings, state, ctx.signal, ctx.onEvent);
    if (response.kind === 'err') return response;
    const { content, toolCalls } = response.value;
    if (toolCalls.length === 0) return finish(ctx, state, content ?? '');
    if (state.toolCalls.length + toolCalls.length > state.maxToolCalls) {
      return turnError(
        'agent-step-limit',
        `The model asked for more than the turn's limit of ${state.maxToolCalls} tool calls`,
        { maxToolCalls: state.maxToolCalls },
      );
    }
    state.messages.push({ role: 'assistant', content, toolCalls });
    state.pending = { calls: toolCalls, answered: {} };
  }
}
