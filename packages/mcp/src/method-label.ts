import type { Context } from 'hono';

// Methods a metric may name; any other is `other`, so a client cannot grow the label set.
const KNOWN_METHODS = new Set([
  'initialize',
  'ping',
  'server/discover',
  'tools/list',
  'tools/call',
  'notifications/initialized',
  'notifications/cancelled',
  'notifications/progress',
  'logging/setLevel',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'subscriptions/listen',
]);

const LABEL_KEY = 'kindgi.mcp.method';

/** A bounded label for a JSON-RPC body: its method if known, `other`, `batch`, `response` or `invalid`. */
export function methodLabel(body: unknown): string {
  if (Array.isArray(body)) return 'batch';
  if (typeof body !== 'object' || body === null) return 'invalid';
  const method = (body as { method?: unknown }).method;
  if (method === undefined) return 'response';
  return typeof method === 'string' && KNOWN_METHODS.has(method) ? method : 'other';
}

/** Notes the MCP method of this request for the host's request telemetry. */
export function setMcpMethod(c: Context, label: string): void {
  c.set(LABEL_KEY as never, label as never);
}

/**
 * The MCP method (bounded) of a request the MCP face served, or undefined when it did not serve it: the host's
 * telemetry labels MCP requests by it (the HTTP method, e.g. `GET`, when no JSON-RPC body was read).
 */
export function mcpMethodOf(c: Context): string | undefined {
  return c.get(LABEL_KEY as never) as string | undefined;
}
