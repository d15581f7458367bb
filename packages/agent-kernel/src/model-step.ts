import type { ModelResponse, ModelTool } from '@kindgi/bindings';
import { ok, type Result } from '@kindgi/protocol';
import { type AgentTurnError, turnError } from './errors.js';
import type { AgentKernelBindings, ModelCallRecord, TurnEvent, TurnState, TurnUsage } from './types.js';

/** The tools as the model sees them: id, description, the JSON Schema of the input. */
function modelTools(state: TurnState): ModelTool[] {
  return state.tools.map((tool) => ({
    toolId: tool.id,
    inputSchema: tool.inputSchema,
    ...(tool.description !== undefined ? { description: tool.description } : {}),
  }));
}

/** Calls the model once with the conversation so far; records the call (usage included) and reports it. */
export async function callModel(
  bindings: AgentKernelBindings,
  state: TurnState,
  signal: AbortSignal,
  onEvent: (event: TurnEvent) => void,
): Promise<Result<ModelResponse, AgentTurnError>> {
  const model = bindings.models.get(state.model);
  if (!model) return turnError('model-not-configured', `The server does not configure model "${state.model}"`);
  const step = state.modelCalls.length + 1;
  const started = performance.now();
  const answer = await model.complete({
    messages: state.messages,
    tools: modelTools(state),
    signal,
    onText: (delta) => onEvent({ kind: 'model.text', step, delta }),
  });
  if (answer.kind === 'err') {
    if (signal.aborted) return turnError('turn-cancelled', 'The turn was cancelled');
    return turnError('model-call-failed', `Model call ${step} failed: ${answer.error.message}`, {
      step,
      modelError: answer.error.code,
      ...(answer.error.status !== undefined ? { status: answer.error.status } : {}),
    });
  }
  const record: ModelCallRecord = {
    step,
    model: answer.value.model,
    finishReason: answer.value.finishReason,
    toolCalls: answer.value.toolCalls.length,
    durationMs: Math.round(performance.now() - started),
  };
  if (answer.value.usage) record.usage = answer.value.usage;
  state.modelCalls.push(record);
  onEvent({ kind: 'model.call', step, record });
  return ok(answer.value);
}

/** The tokens of every model call so far. */
export function turnUsage(state: TurnState): TurnUsage {
  const usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  for (const call of state.modelCalls) {
    usage.inputTokens += call.usage?.inputTokens ?? 0;
    usage.outputTokens += call.usage?.outputTokens ?? 0;
    usage.totalTokens += call.usage?.totalTokens ?? 0;
  }
  return usage;
}
