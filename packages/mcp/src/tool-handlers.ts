import {
  type CallToolRequestParams,
  type CallToolResult,
  type ListToolsRequest,
  ProtocolError,
  ProtocolErrorCode,
} from '@modelcontextprotocol/server';
import { type ToolCallDeps, type ToolRequestContext, toolCallHandler } from './tool-call.js';
import { pageOfTools, type ToolPage } from './tool-pages.js';

/**
 * The one implementation of `tools/list` and `tools/call`. The SDK's request handlers and the fast lane both
 * call these, so the two paths cannot answer differently.
 */
export interface ToolHandlers {
  list(params: ListToolsRequest['params'], ctx: ToolRequestContext): Promise<ToolPage>;
  call(params: CallToolRequestParams, ctx: ToolRequestContext): Promise<CallToolResult>;
}

/** What the handlers need: the pipeline, the registry, and the `tools/list` page size. */
export interface ToolHandlerDeps extends ToolCallDeps {
  pageSize: number;
}

export function createToolHandlers(deps: ToolHandlerDeps): ToolHandlers {
  return {
    list: async (params, ctx) => {
      const tools = await deps.toolRegistry.listTools(ctx.tenantId);
      const page = pageOfTools(tools, params?.cursor, deps.pageSize);
      if (page.kind === 'err') throw new ProtocolError(ProtocolErrorCode.InvalidParams, page.error);
      return page.value;
    },
    call: toolCallHandler(deps),
  };
}
