import type { ModelToolCall } from '@kindgi/bindings';
import { type AgentTurnError, turnError } from './errors.js';
import { MAX_TOOL_RESULT_CHARS } from './limits.js';
import { turnUsage } from './model-step.js';
import { executeTool, parseArguments } from './tool-exec.js';
import { dryRunStop, gateReason, shownToModel } from './tool-policy.js';
import type { AgentKernelBindings, ResolvedTool, TurnEvent, TurnOutcome, TurnState, WouldCall } from './types.js';

/** Where settling the model's tool calls left the turn. */
export type ToolStep =
  | { kind: 'continue' }
  | { kind: 'outcome'; outcome: TurnOutcome }
  | { kind: 'failed'; error: AgentTurnError };

/** What a step needs besides the state. */
export interface StepContext {
  bindings: AgentKernelBindings;
  signal: AbortSignal;
  onEvent: (event: TurnEvent) => void;
  newId: () => string;
}

function clip(text: string): string {
  if (text.length <= MAX_TOOL_RESULT_CHARS) return text;
  return `${text.slice(0, MAX_TOOL_RESULT_CHARS)}… [cut: the result held ${text.length} characters]`;
}

function recordCall(
  ctx: StepContext,
  state: TurnState,
  call: ModelToolCall,
  tool: ResolvedTool | undefined,
  args: unknown,
): void {
  const traced = {
    toolCallId: call.id,
    toolId: call.toolId,
    toolName: call.toolId,
    version: tool?.version ?? '',
    arguments: args,
  };
  state.toolCalls.push(traced);
  ctx.onEvent({ kind: 'tool.call', call: traced });
}

/** Answers a call with a failure: shown to the model when `toolErrors` lists its code, else the turn fails. */
function answerFailure(
  ctx: StepContext,
  state: TurnState,
  call: ModelToolCall,
  code: string,
  message: string,
): AgentTurnError | undefined {
  const shown = code === 'tool-denied' || shownToModel(state, code);
  const result = { toolCallId: call.id, toolId: call.toolId, error: { code, message } };
  state.toolResults.push(result);
  ctx.onEvent({ kind: 'tool.result', result, shownToModel: shown });
  if (!shown) {
    return turnError('tool-call-failed', `Tool "${call.toolId}" failed with ${code}: ${message}`, {
      toolId: call.toolId,
      toolCallId: call.id,
      code,
    }).error;
  }
  (state.pending as NonNullable<TurnState['pending']>).answered[call.id] = JSON.stringify({ error: { code, message } });
  return undefined;
}

function wouldCall(state: TurnState, call: ModelToolCall): WouldCall {
  const args = parseArguments(call);
  const version = state.tools.find((tool) => tool.id === call.toolId)?.version ?? '';
  return { toolCallId: call.id, toolId: call.toolId, version, arguments: args.ok ? args.value : call.arguments };
}

/** A dry run's stop before the first call of a tool that is not read-only, or undefined when it goes on. */
function dryRunOutcome(ctx: StepContext, state: TurnState, calls: ModelToolCall[]): TurnOutcome | undefined {
  for (const call of calls) {
    const tool = state.tools.find((t) => t.id === call.toolId);
    const stop = tool && dryRunStop(tool);
    if (!stop) continue;
    const stoppedAt = { ...wouldCall(state, call), ...stop };
    ctx.onEvent({ kind: 'dry-run.stopped', stoppedAt });
    return {
      status: 'dry-run-stopped',
      stoppedAt,
      wouldCall: calls.map((c) => wouldCall(state, c)),
      usage: turnUsage(state),
    };
  }
  return undefined;
}

type Runnable = { call: ModelToolCall; tool: ResolvedTool; input: Record<string, unknown> };

/** Sorts the open calls: answered at once (unknown tool, bad arguments, denied), waiting for approval, or runnable. */
function classify(ctx: StepContext, state: TurnState, open: ModelToolCall[]): ToolStep | Runnable[] {
  const runnable: Runnable[] = [];
  for (const call of open) {
    const tool = state.tools.find((t) => t.id === call.toolId);
    const args = parseArguments(call);
    if (!tool || !args.ok) {
      recordCall(ctx, state, call, tool, args.ok ? args.value : call.arguments);
      const failed = tool
        ? answerFailure(ctx, state, call, 'input-validation-failed', args.ok ? '' : args.message)
        : answerFailure(ctx, state, call, 'tool-not-found', `The agent has no tool "${call.toolId}"`);
      if (failed) return { kind: 'failed', error: failed };
      continue;
    }
    const gate = gateReason(state, tool);
    if (gate !== undefined && !state.approved.includes(tool.id)) {
      if (state.denied.includes(tool.id)) {
        recordCall(ctx, state, call, tool, args.value);
        answerFailure(ctx, state, call, 'tool-denied', `A call of "${tool.id}" was denied earlier in this turn`);
        continue;
      }
      const approval = {
        approvalId: ctx.newId(),
        toolCallId: call.id,
        toolId: tool.id,
        version: tool.version,
        arguments: args.value,
        reason: gate,
      };
      (state.pending as NonNullable<TurnState['pending']>).approval = approval;
      ctx.onEvent({ kind: 'approval.requested', approval });
      return { kind: 'outcome', outcome: { status: 'suspended', approval, state, usage: turnUsage(state) } };
    }
    runnable.push({ call, tool, input: args.value });
  }
  return runnable;
}

/**
 * Settles the model's pending tool calls: a dry run may stop first; calls a gate holds suspend the turn; the
 * rest run in parallel through the pack-call pipeline. When every call has its answer, the answers join the
 * conversation in the order the model asked.
 */
export async function settleToolCalls(ctx: StepContext, state: TurnState): Promise<ToolStep> {
  const pending = state.pending as NonNullable<TurnState['pending']>;
  const open = pending.calls.filter((call) => !Object.hasOwn(pending.answered, call.id));
  if (state.dryRun) {
    const stopped = dryRunOutcome(ctx, state, open);
    if (stopped) return { kind: 'outcome', outcome: stopped };
  }
  const sorted = classify(ctx, state, open);
  if (!Array.isArray(sorted)) return sorted;
  for (const run of sorted) recordCall(ctx, state, run.call, run.tool, run.input);
  const outcomes = await Promise.all(
    sorted.map((run) => executeTool(ctx.bindings, state, run.tool, run.call, run.input, ctx.signal)),
  );
  if (ctx.signal.aborted) return { kind: 'failed', error: turnError('turn-cancelled', 'The turn was cancelled').error };
  for (const [index, outcome] of outcomes.entries()) {
    const { call } = sorted[index] as Runnable;
    if (!outcome.ok) {
      const failed = answerFailure(ctx, state, call, outcome.code, outcome.message);
      if (failed) return { kind: 'failed', error: failed };
      continue;
    }
    const result = { toolCallId: call.id, toolId: call.toolId, output: outcome.output };
    state.toolResults.push(result);
    ctx.onEvent({ kind: 'tool.result', result, shownToModel: true });
    pending.answered[call.id] = clip(JSON.stringify(outcome.output ?? null));
  }
  for (const call of pending.calls) {
    state.messages.push({ role: 'tool', toolCallId: call.id, content: pending.answered[call.id] as string });
  }
  delete state.pending;
  return { kind: 'continue' };
}
