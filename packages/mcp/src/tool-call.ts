import { randomUUID } from 'node:crypto';
import type { PackCaller, PackReply, ToolRegistry } from '@kindgi/bindings';
import type { Result } from '@kindgi/protocol';
import {
  type CallToolRequestParams,
  type CallToolResult,
  ProtocolError,
  ProtocolErrorCode,
} from '@modelcontextprotocol/server';
import { failureResult, type McpCallFailure, outputResult } from './call-result.js';
import { shapeOf } from './tool-shape.js';

/** Where a call names its deadline in `params._meta` (the REST body's `deadlineMs`). */
export const DEADLINE_META_KEY = 'kindgi.dev/deadlineMs';

/** Reads a pack's reply to a tool call: its output, or the failure in the host's words. */
export type ReadToolReply = (reply: PackReply) => Result<{ output: unknown }, McpCallFailure>;

/**
 * What a `tools/list` or `tools/call` handler is given, whichever path served the request (the SDK's, or the
 * fast lane): the caller's tenant, the request's `_meta`, and the signal that fires on a cancel, a closed
 * stream or a shutdown.
 */
export interface ToolRequestContext {
  tenantId: string;
  meta: Record<string, unknown> | undefined;
  signal: AbortSignal;
}

/** What `tools/call` needs: the registry, the host's one pack-call pipeline and its reading of replies. */
export interface ToolCallDeps {
  toolRegistry: ToolRegistry;
  callPack: PackCaller;
  readReply: ReadToolReply;
  maxDeadlineMs: number;
}

function deadlineOf(meta: Record<string, unknown> | undefined, max: number): number | undefined {
  const value = meta?.[DEADLINE_META_KEY];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `_meta["${DEADLINE_META_KEY}"] must be an integer from 1 to ${max}.`,
    );
  }
  return value;
}

function plainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `tools/call`: the tool looked up for the caller's tenant (unknown: JSON-RPC -32602), then called through
 * the pipeline exactly as `POST /v1/tools/{id}/invoke` calls it. The request's signal (a cancel, a closed
 * stream) travels with the call, so the pack's handler is aborted too.
 */
export function toolCallHandler(deps: ToolCallDeps) {
  return async (params: CallToolRequestParams, ctx: ToolRequestContext): Promise<CallToolResult> => {
    const { tenantId } = ctx;
    const { name } = params;
    const tool = await deps.toolRegistry.getTool(tenantId, name);
    if (tool === null) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
    const deadlineMs = deadlineOf(ctx.meta, deps.maxDeadlineMs);
    const shape = shapeOf(tool);
    const args = params.arguments ?? {};
    const reply = await deps.callPack({
      kind: 'invoke',
      tool: { id: name },
      input: shape.wrapsInput ? args.input : args,
      ctx: { tenantId, runId: `call-${randomUUID()}`, requestId: `mcp-${randomUUID()}` },
      signal: ctx.signal,
      packId: tool.packId,
      ...(deadlineMs === undefined ? {} : { deadlineMs }),
    });
    const answer = deps.readReply(reply);
    if (answer.kind === 'err') return failureResult(answer.error);
    const { output } = answer.value;
    if (shape.wrapsOutput) return outputResult({ result: output });
    // The pack checked its output against the object schema; anything else is the pack's protocol fault.
    if (!plainObject(output)) {
      return failureResult({ code: 'pack-protocol-error', message: 'The tool answered a non-object output.' });
    }
    return outputResult(output);
  };
}
