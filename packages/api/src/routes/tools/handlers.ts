import { randomUUID } from 'node:crypto';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { describedToolPack, type PackCaller, type ToolRegistry } from '@kindgi/bindings';
import type { AppEnv } from '../../env.js';
import { ApiError } from '../../errors/api-error.js';
import { restAnswer } from '../../errors/pack-errors.js';
import type { CursorSealer } from '../../pagination/cursor-seal.js';
import { pageById } from '../../pagination/page-in-memory.js';
import { jsonBytes, jsonBytesOf } from '../../responses/sliced-body.js';
import { getToolRoute, invokeToolRoute, listToolsRoute } from './definitions.js';

/** What the tool routes need; without a registry only `invoke` is mounted (the pack decides what exists). */
export interface ToolDeps {
  /** The app's pack-call pipeline. */
  callPack: PackCaller;
  toolRegistry: ToolRegistry | undefined;
  cursors: CursorSealer;
}

/** Mounts `/v1/tools` (list and get with a registry) and `/v1/tools/{toolId}/invoke`. */
export function registerToolRoutes(app: OpenAPIHono<AppEnv>, deps: ToolDeps): void {
  const { toolRegistry } = deps;
  if (toolRegistry !== undefined) {
    app.openapi(listToolsRoute, async (c) => {
      const { tenantId } = c.get('principal');
      const tools = await toolRegistry.listTools(tenantId);
      return c.json(pageById(tools, c.req.valid('query'), deps.cursors, `${tenantId}|tools`), 200);
    });
    app.openapi(getToolRoute, async (c) => {
      const { tenantId } = c.get('principal');
      const { toolId } = c.req.valid('param');
      const tool = await toolRegistry.getTool(tenantId, toolId);
      if (tool === null) throw new ApiError('tool-not-found', `No tool '${toolId}'.`, { toolId });
      return c.json(tool, 200);
    });
  }

  app.openapi(invokeToolRoute, async (c) => {
    const { tenantId } = c.get('principal');
    const { toolId } = c.req.valid('param');
    const body = c.req.valid('json');
    let packId: string | undefined;
    if (toolRegistry !== undefined) {
      const tool = await toolRegistry.getTool(tenantId, toolId);
      if (tool === null) throw new ApiError('tool-not-found', `No tool '${toolId}'.`, { toolId });
      if (body.version !== undefined && !tool.versions.includes(body.version)) {
        throw new ApiError('tool-version-not-found', `Tool '${toolId}' has no version '${body.version}'.`, {
          toolId,
          version: body.version,
          versions: tool.versions,
        });
      }
      // What the registry found travels with the call, so the router need not look the tool up again.
      packId = describedToolPack(tool, body.version);
    }
    const reply = await deps.callPack({
      kind: 'invoke',
      tool: body.version === undefined ? { id: toolId } : { id: toolId, version: body.version },
      input: body.input,
      ctx: { tenantId, runId: `call-${randomUUID()}`, requestId: c.get('requestId') },
      // The request's signal fires when the client goes away, which cancels the call in the pack.
      signal: c.req.raw.signal,
      ...(body.deadlineMs === undefined ? {} : { deadlineMs: body.deadlineMs }),
      ...(packId === undefined ? {} : { packId }),
    });
    const answer = restAnswer(reply, 'result');
    if (answer.kind === 'err') throw answer.error;
    // Sent as the client reads it: a client that stops reading holds a socket buffer, not the output twice.
    const result = { output: answer.value.output };
    return jsonBytes<typeof result, 200>(c, jsonBytesOf(result), 200);
  });
}
