import { expect } from 'vitest';

/** The envelope a 2026-07-28 client puts in every request's `_meta`. */
export const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'raw-test', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

export type Era = 'modern' | 'legacy';

/** A raw JSON-RPC POST as the official clients send it for `era` (headers overridable, `null` drops one). */
export function post(
  url: string,
  token: string,
  era: Era,
  body: Record<string, unknown>,
  headers: Record<string, string | null> = {},
  signal?: AbortSignal,
): Promise<Response> {
  const params = (body.params ?? {}) as Record<string, unknown>;
  const base: Record<string, string | null> = {
    accept: 'application/json, text/event-stream',
    'content-type': 'application/json',
    authorization: `Bearer ${token}`,
  };
  if (era === 'modern') {
    base['mcp-protocol-version'] = '2026-07-28';
    base['mcp-method'] = String(body.method);
    if (typeof params.name === 'string') base['mcp-name'] = params.name;
  } else base['mcp-protocol-version'] = '2025-11-25';
  const merged = Object.entries({ ...base, ...headers }).filter(
    (entry): entry is [string, string] => entry[1] !== null,
  );
  const sent =
    era === 'modern' && body.method !== undefined
      ? { ...body, params: { ...params, _meta: { ...ENVELOPE, ...(params._meta as object) } } }
      : body;
  return fetch(url, {
    method: 'POST',
    headers: Object.fromEntries(merged),
    body: JSON.stringify({ jsonrpc: '2.0', ...sent }),
    ...(signal && { signal }),
  });
}

/** What a response carries that a client reads: status, media type, and the JSON-RPC messages in it. */
export async function wireOf(response: Response): Promise<{ status: number; type: string; messages: unknown[] }> {
  const type = (response.headers.get('content-type') ?? '').split(';')[0] as string;
  const text = await response.text();
  let messages: unknown[] = [];
  if (type === 'application/json' && text !== '') messages = [JSON.parse(text)];
  if (type === 'text/event-stream') {
    messages = text
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)));
  }
  return { status: response.status, type, messages };
}

/**
 * Asserts two answers to the same request carry the same status and messages (as parsed JSON, key order
 * aside); the media type too unless `fastType` names the one the first must have (a 2025-11-25 answer may be
 * one JSON body where the SDK sends one SSE event).
 */
export async function expectSameWire(fast: Response, sdk: Response, fastType?: string): Promise<void> {
  const [a, b] = await Promise.all([wireOf(fast), wireOf(sdk)]);
  if (fastType === undefined) expect(a).toEqual(b);
  else {
    expect(a.type).toBe(fastType);
    expect({ ...a, type: undefined }).toEqual({ ...b, type: undefined });
  }
}
