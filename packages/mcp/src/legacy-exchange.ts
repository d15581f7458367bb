import type { McpHandlerRequestOptions, McpHttpHandler } from '@modelcontextprotocol/server';
import { type LegacyCancels, SESSION_HEADER } from './legacy-cancels.js';

function idOf(body: unknown, field: 'id' | 'requestId'): unknown {
  if (typeof body !== 'object' || body === null) return undefined;
  if (field === 'id') return (body as { id?: unknown }).id;
  const params = (body as { params?: unknown }).params;
  return typeof params === 'object' && params !== null ? (params as { requestId?: unknown }).requestId : undefined;
}

/** The body of `response`, calling `done` once when it ends, fails or its reader goes away. */
function onBodyEnd(response: Response, done: () => void): Response {
  const body = response.body;
  if (body === null) {
    done();
    return response;
  }
  const reader = body.getReader();
  const tracked = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const chunk = await reader.read();
        if (chunk.done) {
          done();
          controller.close();
        } else controller.enqueue(chunk.value);
      } catch (cause) {
        done();
        controller.error(cause);
      }
    },
    cancel(reason) {
      done();
      return reader.cancel(reason);
    },
  });
  return new Response(tracked, { status: response.status, headers: response.headers });
}

/**
 * Serves a JSON-RPC POST, adding what stateless 2025-11-25 serving lacks for cancels: `initialize` answers
 * carry a session id (never stored), a `tools/call` within a session can be cancelled by a
 * `notifications/cancelled` that names it, and that notification is acknowledged here.
 */
export async function serveJsonRpc(
  handler: McpHttpHandler,
  cancels: LegacyCancels,
  request: Request,
  tenantId: string,
  label: string,
  options: McpHandlerRequestOptions,
): Promise<Response> {
  const session = request.headers.get(SESSION_HEADER);
  if (session !== null && label === 'notifications/cancelled') {
    cancels.cancel(tenantId, session, idOf(options.parsedBody, 'requestId'));
    return new Response(null, { status: 202 });
  }
  if (session !== null && label === 'tools/call') {
    const call = cancels.register(tenantId, session, idOf(options.parsedBody, 'id'));
    // The SDK tears the exchange down when the request's signal fires: a cancel then acts as a closed stream.
    const signal = AbortSignal.any([request.signal, call.signal]);
    const cancellable = new Request(request.url, { method: 'POST', headers: request.headers, signal });
    const response = await handler.fetch(cancellable, options);
    return onBodyEnd(response, call.release);
  }
  const response = await handler.fetch(request, options);
  if (label === 'initialize' && response.ok && !response.headers.has(SESSION_HEADER)) {
    const headers = new Headers(response.headers);
    headers.set(SESSION_HEADER, cancels.issueSession());
    return new Response(response.body, { status: response.status, headers });
  }
  return response;
}
