import { err, ok, PACK_HEADERS, type Result, silenceLimitMs } from '@kindgi/protocol';
import { Client, type Dispatcher, request } from 'undici';

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
  /** Sent as `kindgi-run-id`: a check's call record takes its run id from it. */
  runId?: string;
  /** Sent as `kindgi-request-id`: a check's call record takes its request id from it. */
  requestId?: string;
  traceparent?: string;
  /** Aborting it abandons the call: the connection closes, so the service answers the handler `cancelled`. */
  signal?: AbortSignal;
  /** Stop reading a reply body past this many bytes (`reply-too-large`). Default: no limit. */
  maxReplyBytes?: number;
  /**
   * Room for a reply's body, held before it is read (its declared length, else `maxReplyBytes`): a release,
   * or `undefined` when none came in time (the body is then not read; the call was delivered). See `ReplyRoom`.
   */
  holdReply?: ReplyRoom;
}

/** Waits for room to read `bytes` of a reply (until `signal`); the release to call once they are decoded. */
export type ReplyRoom = (bytes: number, signal?: AbortSignal) => Promise<(() => void) | undefined>;

/** The service's reply as it came: status, the headers a caller may rely on, and the raw body. */
export interface RelayResponse {
  status: number;
  /** `content-type`, `retry-after` and every `kindgi-*` header, lowercase. */
  headers: Record<string, string>;
  body: Buffer;
  /** Gives back the room `holdReply` held for the body: the caller calls it once done with `body`. */
  release?: () => void;
}

/**
 * Why no reply came back. `not-delivered`: the request never reached the service (connection refused, or
 * reset with the request unread, twice), so the call did not run. `no-reply`: it was sent but the
 * connection died before an answer (it may have run). `silent`: it was sent and nothing came back within
 * the deadline plus `SILENCE_GRACE_MS` (it may have run). `aborted`: the caller's signal fired first.
 * `reply-too-large`: the reply passed `maxReplyBytes` and was cut off there (the call did run).
 */
export type RelayErrorCode = 'not-delivered' | 'no-reply' | 'silent' | 'aborted' | 'reply-too-large';

export interface RelayError {
  code: RelayErrorCode;
  message: string;
}

/**
 * The `Retry-After` of a call that reached no service (nothing accepted it, or no child serves): the caller
 * comes back soon instead of waiting on a connection. The front's 503 and the client's refusal both say it.
 */
export const NOT_DELIVERED_RETRY_AFTER_MS = 1_000;

/** How a supervisor front's 502 for a reply past its `maxReplyBytes` starts (the client maps it to `pack-reply-too-large`). */
export const REPLY_TOO_LARGE = 'Reply too large';

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

// A reset (or a write into a closed socket) before any reply: the service's socket was closed with the
// request still unread, which is how a kept-alive connection the service had just closed answers a reuse.
// The service runs nothing before it has read a whole request, so the call did not run.
const RESET = new Set(['ECONNRESET', 'EPIPE']);

// undici's own timers: nothing (headers) or nothing more (body) came within the patience given.
const SILENT = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

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

function errorCode(thrown: unknown, codes: ReadonlySet<string>): string | undefined {
  let current: unknown = thrown;
  // undici wraps socket errors; the errno code may sit one or two `cause`s down.
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && codes.has(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function describe(thrown: unknown): string {
  return thrown instanceof Error ? `${thrown.name}: ${thrown.message}` : String(thrown);
}

/** True when a reply declares a length past `limit`: it is refused before a byte is read. */
function passesLimit(length: string | string[] | undefined, limit: number | undefined): boolean {
  return limit !== undefined && typeof length === 'string' && Number(length) > limit;
}

/** Drops a body unread; destroying it closes that connection, so the rest is never buffered. */
function discard(body: Dispatcher.ResponseData['body']): void {
  // undici reports a destroyed body as an `error` event: expected here, so it must not go unhandled.
  body.on('error', () => {});
  body.destroy();
}

/**
 * Room for a reply's body before it is read: `undefined` when the call holds none (no `holdReply`), `null`
 * when none came in time. The body's declared length, capped by `maxReplyBytes`, is what is held.
 */
async function holdRoom(
  reply: Dispatcher.ResponseData,
  call: RelayCall,
  patienceMs: number,
): Promise<(() => void) | undefined | null> {
  if (call.holdReply === undefined) return undefined;
  const declared = Number(reply.headers['content-length']);
  const limit = call.maxReplyBytes ?? Number.POSITIVE_INFINITY;
  const bytes = Number.isSafeInteger(declared) && declared >= 0 ? Math.min(declared, limit) : limit;
  const signal = call.signal ? AbortSignal.any([call.signal, AbortSignal.timeout(patienceMs)]) : undefined;
  const release = await call.holdReply(Number.isFinite(bytes) ? bytes : 0, signal ?? AbortSignal.timeout(patienceMs));
  return release ?? null;
}

/**
 * Reads a reply body whole, or gives up (`undefined`) as soon as it passes `limit`, so the rest is never
 * buffered. A declared length is read straight into one buffer of that size (no second copy to join chunks).
 */
async function readReply(
  body: Dispatcher.ResponseData['body'],
  length: string | string[] | undefined,
  limit: number | undefined,
): Promise<Buffer | undefined> {
  if (limit === undefined) return Buffer.from(await body.arrayBuffer());
  const declared = typeof length === 'string' ? Number(length) : Number.NaN;
  const whole = Number.isSafeInteger(declared) && declared >= 0 ? Buffer.allocUnsafe(declared) : undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const bytes = chunk as Buffer;
    if (size + bytes.length > limit || (whole !== undefined && size + bytes.length > whole.length)) {
      discard(body);
      return undefined;
    }
    if (whole === undefined) chunks.push(bytes);
    else bytes.copy(whole, size);
    size += bytes.length;
  }
  if (whole !== undefined) return size === whole.length ? whole : whole.subarray(0, size);
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size);
}

/** A relay error, marked when it was a reset (worth one more try on a new connection). */
type AttemptError = RelayError & { reset?: true };

/** Why a sent request got no reply: the classification every caller acts on. */
function failure(thrown: unknown, call: RelayCall, patienceMs: number): AttemptError {
  if (call.signal?.aborted) return { code: 'aborted', message: 'The call was cancelled before a reply arrived' };
  const refused = errorCode(thrown, NOT_DELIVERED);
  if (refused !== undefined) {
    return { code: 'not-delivered', message: `The pack service refused the connection (${refused})` };
  }
  const reset = errorCode(thrown, RESET);
  if (reset !== undefined) {
    const message = `The pack service reset the connection before reading the call (${reset})`;
    return { code: 'not-delivered', message, reset: true };
  }
  if (errorCode(thrown, SILENT) !== undefined) {
    return { code: 'silent', message: `The pack service gave no reply within ${patienceMs} ms` };
  }
  return { code: 'no-reply', message: `The pack service gave no reply: ${describe(thrown)}` };
}

/** One attempt on `dispatcher`: the reply, or why none came. */
async function attempt(
  target: RelayTarget,
  call: RelayCall,
  dispatcher: Dispatcher | undefined,
  patienceMs: number,
): Promise<Result<RelayResponse, AttemptError>> {
  const route = call.route ?? (call.body === undefined ? '/v1/info' : '/v1/invoke');
  const headers: Record<string, string> = { [PACK_HEADERS.token]: target.token };
  const contentType = call.contentType === undefined ? 'application/json' : call.contentType;
  if (route === '/v1/invoke' && contentType !== null) headers['content-type'] = contentType;
  if (call.deadlineMs !== undefined) headers[PACK_HEADERS.timeoutMs] = String(call.deadlineMs);
  if (call.runId) headers[PACK_HEADERS.runId] = call.runId;
  if (call.requestId) headers[PACK_HEADERS.requestId] = call.requestId;
  if (call.traceparent) headers[PACK_HEADERS.traceparent] = call.traceparent;
  let reply: Dispatcher.ResponseData;
  try {
    reply = await request(new URL(route, target.url), {
      method: route === '/v1/invoke' ? 'POST' : 'GET',
      headers,
      body: route === '/v1/invoke' ? (call.body ?? '') : null,
      signal: call.signal,
      dispatcher,
      headersTimeout: patienceMs,
      bodyTimeout: patienceMs,
    });
  } catch (thrown) {
    return err(failure(thrown, call, patienceMs));
  }
  if (passesLimit(reply.headers['content-length'], call.maxReplyBytes)) {
    discard(reply.body);
    return err({ code: 'reply-too-large', message: `The reply passed the limit of ${call.maxReplyBytes} bytes` });
  }
  const release = await holdRoom(reply, call, patienceMs);
  if (release === null) {
    // No room within the call's patience: the call ran (or may have), its reply is dropped unread.
    discard(reply.body);
    if (call.signal?.aborted) return err({ code: 'aborted', message: 'The call was cancelled before a reply arrived' });
    return err({ code: 'no-reply', message: `No room to read the reply within ${patienceMs} ms (replies in flight)` });
  }
  try {
    const body = await readReply(reply.body, reply.headers['content-length'], call.maxReplyBytes);
    if (body === undefined) {
      release?.();
      return err({ code: 'reply-too-large', message: `The reply passed the limit of ${call.maxReplyBytes} bytes` });
    }
    const response = { status: reply.statusCode, headers: relayedHeaders(reply.headers), body };
    return ok(release === undefined ? response : { ...response, release });
  } catch (thrown) {
    release?.();
    // A reply had begun: whatever broke it off, the call was delivered.
    const broken = failure(thrown, call, patienceMs);
    return err(broken.code === 'not-delivered' ? { code: 'no-reply', message: broken.message } : broken);
  }
}

/** A new connection of its own for one retry: never a kept-alive socket the service may have closed. */
async function onFreshConnection(
  target: RelayTarget,
  call: RelayCall,
  patienceMs: number,
): Promise<Result<RelayResponse, AttemptError>> {
  const fresh = new Client(new URL(target.url).origin, { pipelining: 1 });
  try {
    return await attempt(target, call, fresh, patienceMs);
  } finally {
    fresh.destroy().catch(() => undefined);
  }
}

/**
 * Forwards one call to a pack service and returns its reply untouched (any status), or why none came.
 * Never throws. Shared by the supervisor's front and the protocol client. A reset before any reply (the
 * race of a request with a service closing a kept-alive connection) is tried once more on a new connection;
 * nothing comes within the call's deadline plus `SILENCE_GRACE_MS` is `silent`.
 */
export async function relay(target: RelayTarget, call: RelayCall): Promise<Result<RelayResponse, RelayError>> {
  if (call.signal?.aborted) return err({ code: 'aborted', message: 'The call was cancelled before it was sent' });
  const patienceMs = silenceLimitMs(call.deadlineMs);
  const first = await attempt(target, call, target.dispatcher, patienceMs);
  if (first.kind === 'ok') return first;
  const { code, message, reset } = first.error;
  if (!reset) return err({ code, message });
  const again = await onFreshConnection(target, call, patienceMs);
  return again.kind === 'ok' ? again : err({ code: again.error.code, message: again.error.message });
}
