import type { ApiLogger, PackCaller, TokenResolver, ToolRegistry } from '@kindgi/bindings';
import { createMcpApp, type ReadToolReply } from '@kindgi/mcp';
import { err, ok } from '@kindgi/protocol';
import type { Hono } from 'hono';
import { restAnswer } from './errors/pack-errors.js';
import { MAX_DEADLINE_MS } from './routes/tools/definitions.js';

/** `createApp`'s `mcp` option: where the MCP face is mounted, and its `tools/list` page size. */
export interface McpOption {
  /** Default `/mcp`. */
  path?: string;
  /** Tools per `tools/list` page. Default 100. */
  pageSize?: number;
}

/** A reply read the way `/v1/tools/{id}/invoke` reads it: the same failures, in the REST error table's words. */
const readReply: ReadToolReply = (reply) => {
  const answer = restAnswer(reply, 'result');
  if (answer.kind === 'ok') return ok({ output: answer.value.output });
  const { code, message, details } = answer.error;
  return err({ code, message, details });
};

/** The MCP face over the app's own pipeline, registry and tokens. */
export function mcpFace(
  option: true | McpOption,
  deps: { resolveToken: TokenResolver; toolRegistry: ToolRegistry; callPack: PackCaller; logger: ApiLogger },
): Hono {
  const options = option === true ? {} : option;
  return createMcpApp({
    ...deps,
    readReply,
    maxDeadlineMs: MAX_DEADLINE_MS,
    ...(options.path === undefined ? {} : { basePath: options.path }),
    ...(options.pageSize === undefined ? {} : { pageSize: options.pageSize }),
  });
}
