import {
  type CallToolRequestParams,
  classifyInboundRequest,
  isJsonContentType,
  type JSONRPCRequest,
  type ListToolsRequest,
  type RequestId,
  SUPPORTED_PROTOCOL_VERSIONS,
  specTypeSchemas,
} from '@modelcontextprotocol/server';

/**
 * The modern revision whose encode contract the fast lane writes (fast-answer.ts). A request for any other
 * revision goes to the SDK, which knows which ones it serves.
 */
export const FAST_MODERN_REVISION = '2026-07-28';

/** A request the fast lane answers: its era, id, validated params, and whether to answer as an SSE event. */
export type FastRoute = {
  era: 'modern' | 'legacy';
  id: RequestId;
  sse: boolean;
} & (
  | { method: 'tools/call'; params: CallToolRequestParams }
  | { method: 'tools/list'; params: ListToolsRequest['params'] }
);

/** The request headers the route depends on (undefined when absent). */
export type HeaderOf = (name: string) => string | undefined;

type Era = { era: 'modern' | 'legacy'; sse: boolean };

/**
 * The modern checks the SDK makes before dispatch, kept stricter here: the envelope claim names the revision
 * the fast lane writes (the classifier has validated the envelope and cross-checked whatever headers are
 * present), and the standard headers are present and name exactly what the body names. Anything else (a
 * missing header, a Base64-encoded `Mcp-Name`) is the SDK's to answer.
 */
function modernEra(header: HeaderOf, message: JSONRPCRequest, name: string | undefined): Era | undefined {
  if (header('mcp-protocol-version') !== FAST_MODERN_REVISION) return undefined;
  if (header('mcp-method') !== message.method) return undefined;
  if (name !== undefined && header('mcp-name') !== name) return undefined;
  const accept = header('accept');
  // The SDK answers one JSON body whatever the Accept header says; a client that takes only event streams
  // gets the same message as one SSE event.
  const sse = accept !== undefined && !accept.includes('application/json') && accept.includes('text/event-stream');
  return { era: 'modern', sse };
}

/**
 * The 2025-11-25 stateless transport's checks: it must accept both media types, and a protocol version
 * header, when sent, must name a version the SDK supports. That revision lets a server answer a request with
 * one JSON body instead of an SSE stream, and a JSON body lets the client keep its connection: the answer is
 * JSON (a cancelled call's answer is an empty stream, fast-answer.ts).
 */
function legacyEra(header: HeaderOf): Era | undefined {
  const accept = header('accept');
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
  const version = header('mcp-protocol-version');
  if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return undefined;
  return { era: 'legacy', sse: false };
}

function validated(message: JSONRPCRequest) {
  const request = { method: message.method, params: message.params };
  if (message.method === 'tools/call') {
    const checked = specTypeSchemas.CallToolRequest['~standard'].validate(request);
    return checked.issues === undefined ? { method: 'tools/call' as const, params: checked.value.params } : undefined;
  }
  const checked = specTypeSchemas.ListToolsRequest['~standard'].validate(request);
  return checked.issues === undefined ? { method: 'tools/list' as const, params: checked.value.params } : undefined;
}

/**
 * The fast lane's route for a POST, or undefined when the SDK must answer it: only a well-formed
 * `tools/call` or `tools/list` request (the SDK's own classifier and schemas decide) that passes every check
 * the SDK would make before dispatching it, so that whatever the SDK would refuse still reaches the SDK and
 * gets its error.
 */
export function fastRouteOf(header: HeaderOf, body: unknown): FastRoute | undefined {
  // A cheap look first; the classifier below proves the JSON-RPC request shape for both routes it may give.
  const method = typeof body === 'object' && body !== null ? (body as { method?: unknown }).method : undefined;
  if (method !== 'tools/call' && method !== 'tools/list') return undefined;
  if (!isJsonContentType(header('content-type') ?? null)) return undefined;
  const outcome = classifyInboundRequest({
    httpMethod: 'POST',
    protocolVersionHeader: header('mcp-protocol-version'),
    mcpMethodHeader: header('mcp-method'),
    mcpNameHeader: header('mcp-name'),
    body,
  });
  if (outcome.kind !== 'modern' && !(outcome.kind === 'legacy' && outcome.reason === 'no-claim')) return undefined;
  const message = body as JSONRPCRequest;
  // A task-augmented call is the SDK's to refuse or serve.
  if (message.params !== undefined && 'task' in message.params) return undefined;
  const request = validated(message);
  if (request === undefined) return undefined;
  const name = request.method === 'tools/call' ? request.params.name : undefined;
  let era: Era | undefined;
  if (outcome.kind === 'modern' && outcome.messageKind === 'request') {
    if (outcome.classification.revision !== FAST_MODERN_REVISION) return undefined;
    era = modernEra(header, message, name);
  } else if (outcome.kind === 'legacy' && outcome.reason === 'no-claim') {
    era = legacyEra(header);
  }
  return era === undefined ? undefined : { ...era, id: message.id, ...request };
}
