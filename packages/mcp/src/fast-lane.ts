import type { Implementation, JSONRPCErrorResponse, JSONRPCResultResponse } from '@modelcontextprotocol/server';
import { answerWith, cancelledAnswer, checkedCallResult, errorMessage, resultMessage } from './fast-answer.js';
import type { FastRoute } from './fast-route.js';
import { type LegacyCancels, SESSION_HEADER } from './legacy-cancels.js';
import type { ToolRequestContext } from './tool-call.js';
import type { ToolHandlers } from './tool-handlers.js';

/** What the fast lane answers with: the shared handlers, the 2025-11-25 cancel registry, the server's name. */
export interface FastLaneDeps {
  tools: ToolHandlers;
  cancels: LegacyCancels;
  serverInfo: Implementation;
}

async function messageFor(
  deps: FastLaneDeps,
  route: FastRoute,
  ctx: ToolRequestContext,
): Promise<JSONRPCResultResponse | JSONRPCErrorResponse> {
  try {
    const result =
      route.method === 'tools/call'
        ? checkedCallResult(await deps.tools.call(route.params, ctx))
        : await deps.tools.list(route.params, ctx);
    return resultMessage(route, result, deps.serverInfo);
  } catch (error) {
    return errorMessage(route, error);
  }
}

/**
 * Answers a routed `tools/call` or `tools/list` straight from the shared handlers: no per-request server,
 * transport or stream. The handler's signal is the request's (a closed stream), joined for a 2025-11-25 call
 * in a session by that session's `notifications/cancelled`; once it fires, nothing is sent.
 */
export async function serveFastLane(
  deps: FastLaneDeps,
  route: FastRoute,
  request: Request,
  tenantId: string,
): Promise<Response> {
  const session = route.era === 'legacy' && route.method === 'tools/call' ? request.headers.get(SESSION_HEADER) : null;
  const call = session === null ? undefined : deps.cancels.register(tenantId, session, route.id, request.signal);
  const signal = call?.signal ?? request.signal;
  try {
    if (signal.aborted) return cancelledAnswer(route);
    const meta = route.params?._meta as Record<string, unknown> | undefined;
    const message = await messageFor(deps, route, { tenantId, meta, signal });
    return signal.aborted ? cancelledAnswer(route) : answerWith(route, message);
  } finally {
    call?.release();
  }
}
