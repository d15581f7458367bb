import { DEFAULT_CALL_TIMEOUT_MS, err, ok, PACK_HEADERS, type Result } from '@kindgi/protocol';
import { type Dispatcher, request } from 'undici';

/** Where a relayed call goes: a pack service's base URL, its token, and the connection pool to use. */
export interface RelayTarget {
  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  url: string;
  token: string;
  /** The connection pool; undici's global dispatcher when absent. */
  dispatcher?: Dispatcher;
}

/** One call to forward. `POST /v1/invoke` when `body` is given, else `GET /v1/info`. */
export interface RelayCall {
  route?: '/v1/invoke' | '/v1/info';
  body?: string | Uint8Array;
  /** Sent as `content-type`: `application/json` when undefined, none when null (the service answers 415). */
  contentType?: string | null;
  /** Sent as `kindgi-timeout-ms`. */
  deadlineMs?: number;
  runId?: string;
  requestId?: string;
  /** Sent as `kindgi-protocol`. */
  protocol?: string;
  traceparent?: string;
  /** Aborting it abandons the call: the connection closes, so the service answers the handler `cancelled`. */
  signal?: AbortSignal;
}

/** The service's reply as it came: status, the headers a caller may rely on, and the raw body. */
export interface RelayResponse {
  status: number;
  /** `content-type`, `retry-after` and every `kindgi-*` header, lowercase. */
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * Why no reply came back. `not-delivered`: the request never reached the service (connection refused),
 * so the call did not run. `no-reply`: it was sent but the connection died before an answer (it may have
 * run). `aborted`: the caller's signal fired first.
 */
export type RelayErrorCode = 'not-delivered' | 'no-reply' | 'aborted';

export interface RelayError {
  code: RelayErrorCode;
  message: string;
}

/** How much longer than the call's deadline the transport waits before giving up on a silent service. */
const TRANSPORT_GRACE_MS = 30_000;

// UND_ERR_CLOSED: the pool was closed (its child replaced) before the request was dispatched.
const NOT_DELIVERED = new Set([
  'UND_ERR_CLOSED',
  'ECONNREFUSED',
  'ENOENT',
  'EADDRNOTAVAIL',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

function relayedHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    const lower = name.toLowerCase();
    if (lower === 'content-type' || lower === 'retry-after' || lower.startsWith('kindgi-')) {
      out[lower] = Array.isArray(value) ? value.join(', ') : value;
    }
  }
  return out;
}

function errorCode(thrown: unknown): string | undefined {
  let current: unknown = thrown;
  // undici wraps socket errors; the errno code may sit one or two `cause`s down.
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && NOT_DELIVERED.has(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function describe(thrown: unknown): string {
  return thrown instanceof Error ? `${thrown.name}: ${thrown.message}` : String(thrown);
}

/**
 * Forwards one call to a pack service and returns its reply untouched (any status), or why none came.
 * Never throws. Shared by the supervisor's front and the protocol client.
 */
export async function relay(target: RelayTarget, call: RelayCall): Promise<Result<RelayResponse, RelayError>> {
  const route = call.route ?? (call.body === undefined ? '/v1/info' : '/v1/invoke');
  const headers: Record<string, string> = { [PACK_HEADERS.token]: target.token };
  const contentType = call.contentType === undefined ? 'application/json' : call.contentType;
  if (route === '/v1/invoke' && contentType !== null) headers['content-type'] = contentType;
  if (call.deadlineMs !== undefined) headers[PACK_HEADERS.timeoutMs] = String(call.deadlineMs);
  if (call.runId) headers[PACK_HEADERS.runId] = call.runId;
  if (call.requestId) headers[PACK_HEADERS.requestId] = call.requestId;
  if (call.protocol) headers[PACK_HEADERS.protocol] = call.protocol;
  if (call.traceparent) headers[PACK_HEADERS.traceparent] = call.traceparent;
  if (call.signal?.aborted) return err({ code: 'aborted', message: 'The call was cancelled before it was sent' });

  const deadline = call.deadlineMs !== undefined && call.deadlineMs > 0 ? call.deadlineMs : DEFAULT_CALL_TIMEOUT_MS;
  const patience = deadline + TRANSPORT_GRACE_MS;
  try {
    const reply = await request(new URL(route, target.url), {
      method: route === '/v1/invoke' ? 'POST' : 'GET',
      headers,
      body: route === '/v1/invoke' ? (call.body ?? '') : null,
      signal: call.signal,
      dispatcher: target.dispatcher,
      headersTimeout: patience,
      bodyTimeout: patience,
    });
    const body = Buffer.from(await reply.body.arrayBuffer());
    return ok({ status: reply.statusCode, headers: relayedHeaders(reply.headers), body });
  } catch (thrown) {
    if (call.signal?.aborted) return err({ code: 'aborted', message: 'The call was cancelled before a reply arrived' });
    const code = errorCode(thrown);
    if (code !== undefined) {
      return err({ code: 'not-delivered', message: `The pack service refused the connection (${code})` });
    }
    return err({ code: 'no-reply', message: `The pack service gave no reply: ${describe(thrown)}` });
  }
}
