import type { ModelToolCall } from '@kindgi/bindings';
import { readPackReply } from '@kindgi/run-worker';
import { failureCode } from './tool-policy.js';
import type { AgentKernelBindings, ResolvedTool, TurnState } from './types.js';

/** What one tool call came to: its output, or a failure with its code. */
export type ToolOutcome = { ok: true; output: unknown } | { ok: false; code: string; message: string };

/** The arguments the model wrote, parsed: an object, or the reason they are not one. */
export function parseArguments(
  call: ModelToolCall,
): { ok: true; value: Record<string, unknown> } | { ok: false; message: string } {
  const text = call.arguments.trim() === '' ? '{}' : call.arguments;
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      return { ok: true, value: value as Record<string, unknown> };
    }
    return { ok: false, message: 'The arguments must be a JSON object' };
  } catch (thrown) {
    return {
      ok: false,
      message: `The arguments are not JSON: ${thrown instanceof Error ? thrown.message : String(thrown)}`,
    };
  }
}

/**
 * Calls one tool through the pack-call pipeline (the deadline, secrets, telemetry and routing layers it was
 * built with), for the turn's tenant and run; the model's call id is the pack's `requestId`.
 */
export async function executeTool(
  bindings: AgentKernelBindings,
  state: TurnState,
  tool: ResolvedTool,
  call: ModelToolCall,
  input: Record<string, unknown>,
  signal: AbortSignal,
): Promise<ToolOutcome> {
  const reply = await bindings.callPack({
    kind: 'invoke',
    tool: { id: tool.id, version: tool.version },
    input,
    ctx: { tenantId: state.tenantId, runId: state.runId, requestId: call.id },
    packId: tool.packId,
    signal,
    ...(state.toolDeadlineMs !== undefined ? { deadlineMs: state.toolDeadlineMs } : {}),
  });
  const answer = readPackReply(reply, 'result');
  if (answer.kind === 'ok') return { ok: true, output: answer.value.output };
  return { ok: false, ...failureCode(answer.error) };
}
