import {
  type CallToolRequest,
  createMcpHandler,
  type ListToolsRequest,
  type McpHttpHandler,
  Server,
  type ServerContext,
  type ServerOptions,
} from '@modelcontextprotocol/server';
import { requestContextOf } from './principal.js';
import type { ToolHandlers } from './tool-handlers.js';

/** What the SDK's handler serves: the shared tool handlers, and how the server names itself and reports errors. */
export interface McpHandlerDeps {
  tools: ToolHandlers;
  serverInfo: { name: string; version: string };
  maxBodyBytes: number;
  onError: (error: Error) => void;
}

/**
 * The SDK's stateless Streamable HTTP handler (2026-07-28, and 2025-11-25 through its stateless legacy
 * serving: `initialize` answered, no session kept, GET and DELETE 405) over one set of request handlers.
 *
 * The handlers are made once here. The SDK asks its factory for an instance per exchange and tears that
 * instance down from its own paths (a notification's close, a client abort's teardown), so an instance is
 * never handed to a second exchange: the factory only allocates a `Server` and attaches the prebuilt
 * handlers (under a microsecond; docs/benchmarks/mcp.md).
 */
export function createToolsHandler(deps: McpHandlerDeps): McpHttpHandler {
  const { tools } = deps;
  const listTools = (request: ListToolsRequest, ctx: ServerContext) =>
    tools.list(request.params, requestContextOf(ctx));
  const callTool = (request: CallToolRequest, ctx: ServerContext) => tools.call(request.params, requestContextOf(ctx));
  const options: ServerOptions = { capabilities: { tools: { listChanged: false } } };
  const factory = (): Server => {
    const server = new Server(deps.serverInfo, options);
    server.setRequestHandler('tools/list', listTools);
    server.setRequestHandler('tools/call', callTool);
    return server;
  };
  return createMcpHandler(factory, {
    legacy: 'stateless',
    onerror: deps.onError,
    maxRequestBodySize: deps.maxBodyBytes,
  });
}
