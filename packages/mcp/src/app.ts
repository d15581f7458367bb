import type { ApiLogger, PackCaller, TokenResolver, ToolRegistry } from '@kindgi/bindings';
import { DEFAULT_CALL_TIMEOUT_MS, exceedsJsonDepth, MAX_JSON_DEPTH } from '@kindgi/protocol';
import { type Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import {
  type AuthRefusal,
  authenticate,
  metadataUrl,
  PROTECTED_RESOURCE_WELL_KNOWN,
  resourceMetadata,
} from './auth.js';
import { type FastLaneDeps, serveFastLane } from './fast-lane.js';
import { type FastRoute, fastRouteOf } from './fast-route.js';
import { LegacyCancels } from './legacy-cancels.js';
import { serveJsonRpc } from './legacy-exchange.js';
import { createToolsHandler } from './mcp-handler.js';
import { methodLabel, setMcpMethod } from './method-label.js';
import { authInfoOf } from './principal.js';
import type { ReadToolReply } from './tool-call.js';
import { createToolHandlers } from './tool-handlers.js';

/** What `createMcpApp` is wired with: the bindings `createApp` has, plus its pipeline and its error reading. */
export interface CreateMcpAppInput {
  /** The same bearer tokens as `/v1`: token → principal (with `tenantId`), or null. */
  resolveToken: TokenResolver;
  /** The tools each tenant sees. */
  toolRegistry: ToolRegistry;
  /** The host's one pack-call pipeline (for `createApp`: deadline, secrets, telemetry, routing). */
  callPack: PackCaller;
  /** The host's reading of a reply: the output, or the failure in its error table's words. */
  readReply: ReadToolReply;
  /** Where the endpoint is. Default `/mcp`. */
  basePath?: string;
  /** Tools per `tools/list` page. Default 100. */
  pageSize?: number;
  /** Largest deadline a call may name in `_meta`. Default 15 minutes. */
  maxDeadlineMs?: number;
  /** Largest request body in bytes. Default 1 MiB. */
  maxBodyBytes?: number;
  serverInfo?: { name: string; version: string };
  logger?: ApiLogger;
  /**
   * Answer well-formed `tools/list` and `tools/call` requests straight from the handlers rather than
   * through the SDK's per-request server (docs/mcp.md). Default true; false sends every request through the
   * SDK (to compare the two).
   */
  fastLane?: boolean;
  /** Told of each request the fast lane answered (for tests and diagnostics; never sent to a client). */
  onFastLane?: (route: Pick<FastRoute, 'era' | 'method'>) => void;
}

const DEFAULT_PAGE_SIZE = 100;
const MAX_PAGE_SIZE = 1000;
const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

function refusalResponse(c: Context, refusal: AuthRefusal): Response {
  const headers: Record<string, string> = {};
  if (refusal.challenge !== undefined) headers['www-authenticate'] = refusal.challenge;
  return c.json({ error: { code: refusal.code, message: refusal.message } }, refusal.status, headers);
}

function jsonRpcError(c: Context, status: 400 | 413, code: number, message: string): Response {
  return c.json({ jsonrpc: '2.0', id: null, error: { code, message } }, status);
}

function checkedPath(basePath: string): string {
  if (!/^\/[A-Za-z0-9._~/-]*[A-Za-z0-9._~-]$/.test(basePath)) {
    throw new Error(`createMcpApp: basePath must be a plain path like /mcp, not '${basePath}'`);
  }
  return basePath;
}

/**
 * The MCP face as a Hono app: Streamable HTTP at `basePath` (both protocol generations, stateless, so any
 * number of servers behind a load balancer serve it), behind the `/v1` bearer tokens, with the RFC 9728
 * metadata at `/.well-known/oauth-protected-resource<basePath>` (within whatever prefix a host mounts it).
 */
export function createMcpApp(input: CreateMcpAppInput): Hono {
  const basePath = checkedPath(input.basePath ?? '/mcp');
  const pageSize = Math.min(Math.max(1, Math.trunc(input.pageSize ?? DEFAULT_PAGE_SIZE)), MAX_PAGE_SIZE);
  const maxBodyBytes = input.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const logger = input.logger;
  const serverInfo = input.serverInfo ?? { name: 'kindgi', version: '0.1.0' };
  const tools = createToolHandlers({
    toolRegistry: input.toolRegistry,
    callPack: input.callPack,
    readReply: input.readReply,
    maxDeadlineMs: input.maxDeadlineMs ?? Math.max(DEFAULT_CALL_TIMEOUT_MS, 15 * 60 * 1000),
    pageSize,
  });
  const handler = createToolsHandler({
    tools,
    serverInfo,
    maxBodyBytes,
    // The SDK's own words about a refused request; never a request's arguments.
    onError: (error) => logger?.warn('mcp request refused', { error: error.message.slice(0, 200) }),
  });
  const cancels = new LegacyCancels();
  const fastLane: FastLaneDeps | undefined = input.fastLane === false ? undefined : { tools, cancels, serverInfo };
  const wellKnown = `${PROTECTED_RESOURCE_WELL_KNOWN}${basePath}`;
  const app = new Hono();

  app.get(wellKnown, (c) => {
    const prefix = c.req.path.slice(0, c.req.path.length - wellKnown.length);
    const { origin } = new URL(c.req.url);
    return c.json(resourceMetadata(`${origin}${prefix}${basePath}`), 200, { 'cache-control': 'max-age=3600' });
  });

  const limit = bodyLimit({
    maxSize: maxBodyBytes,
    onError: (c) => jsonRpcError(c, 413, -32000, `The request body exceeds ${maxBodyBytes} bytes.`),
  });
  // Named methods (not `all`), so a host's telemetry sees a matched route template; the SDK answers GET and
  // DELETE (405 without sessions).
  app.on(['POST', 'GET', 'DELETE'], basePath, limit, async (c) => {
    setMcpMethod(c, c.req.method.toUpperCase());
    // Worked out only for a refusal: an authenticated call never parses its URL.
    const metadata = () => {
      const prefix = c.req.path.slice(0, c.req.path.length - basePath.length);
      return metadataUrl(new URL(c.req.url).origin, prefix, basePath);
    };
    const auth = await authenticate(c.req.header('authorization'), input.resolveToken, metadata);
    if (auth.kind === 'refused') return refusalResponse(c, auth.refusal);
    const authInfo = authInfoOf(auth.principal);
    if (c.req.method.toUpperCase() !== 'POST') return handler.fetch(c.req.raw, { authInfo });
    let parsedBody: unknown;
    try {
      parsedBody = JSON.parse(await c.req.text());
    } catch {
      setMcpMethod(c, 'invalid');
      return jsonRpcError(c, 400, -32700, 'Parse error: the request body is not valid JSON.');
    }
    // The one depth rule of every Kindgi JSON surface: the SDK's schemas and the pack call recurse.
    if (exceedsJsonDepth(parsedBody)) {
      setMcpMethod(c, 'invalid');
      return jsonRpcError(c, 400, -32600, `Invalid request: the JSON body nests deeper than ${MAX_JSON_DEPTH} levels.`);
    }
    const label = methodLabel(parsedBody);
    setMcpMethod(c, label);
    const route = fastLane && fastRouteOf((name) => c.req.header(name), parsedBody);
    if (fastLane && route) {
      input.onFastLane?.({ era: route.era, method: route.method });
      return serveFastLane(fastLane, route, c.req.raw, auth.principal.tenantId);
    }
    return serveJsonRpc(handler, cancels, c.req.raw, auth.principal.tenantId, label, { authInfo, parsedBody });
  });
  return app;
}
