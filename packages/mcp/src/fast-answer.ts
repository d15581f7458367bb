import {
  type CacheHint,
  type CallToolResult,
  type Implementation,
  type JSONRPCErrorResponse,
  type JSONRPCResultResponse,
  ProtocolError,
  ProtocolErrorCode,
  type Result,
  SERVER_INFO_META_KEY,
  specTypeSchemas,
} from '@modelcontextprotocol/server';
import type { FastRoute } from './fast-route.js';

/** What the 2026-07-28 codec fills on a cacheable result (`tools/list`) that names no cache policy. */
const DEFAULT_CACHE: Required<CacheHint> = { ttlMs: 0, cacheScope: 'private' };

// The headers the SDK's transports answer with: a JSON body, or a stream of SSE events.
const JSON_HEADERS = { 'content-type': 'application/json' };
const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

/**
 * A `tools/call` result checked against the SDK's schema, as the SDK's `Server` checks it before sending
 * (and with the SDK's answer when it does not pass).
 */
export function checkedCallResult(result: CallToolResult): CallToolResult {
  const checked = specTypeSchemas.CallToolResult['~standard'].validate(result);
  if (checked.issues === undefined) return checked.value;
  const issues = checked.issues.map((issue) => issue.message).join('; ');
  throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid tools/call result: ${issues}`);
}

/**
 * A result as the route's revision puts it on the wire. 2025-11-25 sends it as it is (our tool shapes never
 * need that codec's output-schema wrap). 2026-07-28 stamps `resultType`, the cache fields of a list, and the
 * server's identity in `_meta`, each kept when the handler set it, as the SDK's codec does.
 */
function wireResult(route: FastRoute, result: Result, serverInfo: Implementation): Result {
  if (route.era === 'legacy') return result;
  const wire: Record<string, unknown> = { ...result, resultType: 'complete' };
  if (route.method === 'tools/list') {
    wire.ttlMs = result.ttlMs ?? DEFAULT_CACHE.ttlMs;
    wire.cacheScope = result.cacheScope ?? DEFAULT_CACHE.cacheScope;
  }
  wire._meta = { [SERVER_INFO_META_KEY]: serverInfo, ...result._meta };
  return wire as Result;
}

/** The JSON-RPC error for a handler's throw, worded as the SDK's protocol layer words it. */
export function errorMessage(route: FastRoute, error: unknown): JSONRPCErrorResponse {
  const thrown = (typeof error === 'object' && error !== null ? error : {}) as Record<string, unknown>;
  const raw = Number.isSafeInteger(thrown.code) ? (thrown.code as number) : ProtocolErrorCode.InternalError;
  // Both codecs send a resource-not-found as invalid params.
  const code = raw === ProtocolErrorCode.ResourceNotFound ? ProtocolErrorCode.InvalidParams : raw;
  const message = typeof thrown.message === 'string' ? thrown.message : 'Internal error';
  return {
    jsonrpc: '2.0',
    id: route.id,
    error: { code, message, ...(thrown.data !== undefined && { data: thrown.data }) },
  };
}

export function resultMessage(route: FastRoute, result: Result, serverInfo: Implementation): JSONRPCResultResponse {
  return { result: wireResult(route, result, serverInfo), jsonrpc: '2.0', id: route.id };
}

/** The HTTP answer carrying one message: a JSON body, or one SSE `message` event. */
export function answerWith(route: FastRoute, message: JSONRPCResultResponse | JSONRPCErrorResponse): Response {
  const json = JSON.stringify(message);
  if (!route.sse) return new Response(json, { status: 200, headers: JSON_HEADERS });
  return new Response(`event: message\ndata: ${json}\n\n`, { status: 200, headers: SSE_HEADERS });
}

/**
 * The answer to a cancelled call: nothing. A 2026-07-28 client has closed its stream (the SDK answers 499
 * to no one); a 2025-11-25 stream ends with no event, as the SDK's teardown closes it.
 */
export function cancelledAnswer(route: FastRoute): Response {
  if (route.era === 'modern') return new Response(null, { status: 499 });
  return new Response('', { status: 200, headers: SSE_HEADERS });
}
