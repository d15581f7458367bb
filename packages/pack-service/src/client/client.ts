import {
  type CallContext,
  DEFAULT_MAX_OUTPUT_BYTES,
  err,
  ok,
  PACK_PROTOCOL_VERSION,
  type PackCallOptions,
  type PackErrorExtra,
  type PackInfo,
  type PackResponse,
  type PackTransportError,
  packError,
  type Result,
  type RunTrace,
  type ToolRef,
} from '@kindgi/protocol';
import { Agent, type Dispatcher } from 'undici';
import {
  NOT_DELIVERED_RETRY_AFTER_MS,
  REPLY_TOO_LARGE,
  type RelayCall,
  type RelayResponse,
  type ReplyRoom,
  relay,
} from '../transport/relay.js';
import { replyMessage } from './reply-message.js';
import { outboundTraceparent } from './traceparent.js';

/** Options shared by `invoke` and `check`: protocol's, also the bindings' call options. */
export type { PackCallOptions } from '@kindgi/protocol';

/** A tool call: the `RunHandlerBinding` argument, a bare tool id also accepted. */
export interface PackInvokeCall extends PackCallOptions {
  tool: ToolRef | string;
  input: unknown;
  ctx: CallContext;
}

/** A guardrail check: the `RunCheckBinding` argument. */
export interface PackCheckCall extends PackCallOptions {
  check: { id: string } | string;
  config: Record<string, unknown>;
  trace: RunTrace;
  /** Sent as `kindgi-run-id` (defaults to `trace.runId`). */
  runId?: string;
  requestId?: string;
}

export interface PackServiceClientOptions {
  /** Base URL of a pack service or a supervisor's front. */
  url: string;
  token: string;
  /** Connection pool; the client makes (and closes) its own keep-alive pool when absent. */
  dispatcher?: Dispatcher;
  /**
   * The largest reply body read (default `DEFAULT_MAX_OUTPUT_BYTES`, 10 MiB, the service's own default
   * cap): past it the client stops reading and the call fails `pack-reply-too-large`.
   */
  maxReplyBytes?: number;
  /**
   * Bytes of call replies read at once, shared by the clients of a process. A call waits up to
   * `admitWaitMs` for room before it is sent (else `pack-unavailable` with `Retry-After`: it did not run);
   * a delivered call's reply waits for room to be read within the call's patience (else
   * `pack-connection-failed`: it may have run). `ByteBudget` of @kindgi/bindings is one.
   */
  replies?: { budget: ReplyBudget; admitWaitMs: number };
}

/** An allowance of bytes held at once, waited for in arrival order (`ByteBudget` of @kindgi/bindings). */
export interface ReplyBudget {
  waitForRoom(waitMs: number, signal?: AbortSignal): Promise<boolean>;
  acquire(bytes: number, waitMs: number, signal?: AbortSignal): Promise<{ release(): void } | undefined>;
}

// Longest a timer waits: a reply waits for room until the call's own patience ends (its signal), not this.
const UNTIL_SIGNAL_MS = 2 ** 31 - 1;

/** A pack protocol v2 client. Its `invoke` and `check` are a runtime's `runHandler` / `runCheck` bindings. */
export interface PackServiceClient {
  invoke(call: PackInvokeCall): Promise<Result<PackResponse, PackTransportError>>;
  check(call: PackCheckCall): Promise<Result<PackResponse, PackTransportError>>;
  info(options?: { signal?: AbortSignal }): Promise<Result<PackInfo, PackTransportError>>;
  /** Closes the client's own pool (a supplied dispatcher is left open). */
  close(): Promise<void>;
}

function parseRetryAfter(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function bodyError(body: Buffer): string {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { error?: unknown };
    if (typeof parsed.error === 'string') return parsed.error;
  } catch {
    // Not JSON: quote a bounded prefix of the text below.
  }
  const text = body.toString('utf8');
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/** Maps a non-200 status to the transport error a caller acts on (retry, re-auth, give up). */
function statusError(reply: RelayResponse): PackTransportError {
  const reason = bodyError(reply.body);
  const status = reply.status;
  if (status === 503) {
    const retryAfterMs = parseRetryAfter(reply.headers['retry-after']);
    const error: PackTransportError = {
      code: 'pack-unavailable',
      message: `Pack service unavailable: ${reason}`,
      status,
    };
    return retryAfterMs === undefined ? error : { ...error, retryAfterMs };
  }
  if (status === 401) return { code: 'pack-auth-failed', message: `Pack service refused the token: ${reason}`, status };
  if (status === 502 && reason.startsWith(REPLY_TOO_LARGE)) {
    return { code: 'pack-reply-too-large', message: `The supervisor refused the pack's reply: ${reason}`, status };
  }
  if (status === 502) {
    return { code: 'pack-connection-failed', message: `The pack service died during the call: ${reason}`, status };
  }
  return { code: 'pack-bad-reply', message: `Pack service answered HTTP ${status}: ${reason}`, status };
}

/** A reply, a transport error, or (`silent`) the `deadline-exceeded` a service silent past its deadline earns. */
type Sent = Result<RelayResponse, PackTransportError | { silent: string }>;

/**
 * Admission of a call to the reply budget, before it is sent: the room its reply is read in, or (nothing was
 * sent, so the call did not run) the refusal once none came within `admitWaitMs`.
 */
async function admit(
  options: PackServiceClientOptions,
  call: RelayCall,
): Promise<Result<ReplyRoom | undefined, PackTransportError>> {
  const replies = options.replies;
  if (replies === undefined || call.route !== '/v1/invoke') return ok(undefined);
  if (!(await replies.budget.waitForRoom(replies.admitWaitMs, call.signal))) {
    if (call.signal?.aborted)
      return err({ code: 'pack-call-aborted', message: 'The call was cancelled before it was sent' });
    const message = "Replies being read fill this process's reply budget: the call was not sent";
    return err({ code: 'pack-unavailable', message, retryAfterMs: NOT_DELIVERED_RETRY_AFTER_MS });
  }
  return ok(async (bytes, signal) => (await replies.budget.acquire(bytes, UNTIL_SIGNAL_MS, signal))?.release);
}

async function send(options: PackServiceClientOptions, dispatcher: Dispatcher, call: RelayCall): Promise<Sent> {
  const maxReplyBytes = options.maxReplyBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  const room = await admit(options, call);
  if (room.kind === 'err') return room;
  const holdReply = room.value === undefined ? {} : { holdReply: room.value };
  const reply = await relay(
    { url: options.url, token: options.token, dispatcher },
    { ...call, maxReplyBytes, ...holdReply },
  );
  if (reply.kind === 'ok') {
    return reply.value.status === 200 ? reply : err(statusError(reply.value));
  }
  const { code, message } = reply.error;
  if (code === 'aborted') return err({ code: 'pack-call-aborted', message });
  if (code === 'not-delivered') {
    return err({ code: 'pack-unavailable', message, retryAfterMs: NOT_DELIVERED_RETRY_AFTER_MS });
  }
  if (code === 'reply-too-large') return err({ code: 'pack-reply-too-large', message });
  if (code === 'silent') return err({ silent: `${message} (its deadline and grace); the call may have run` });
  return err({ code: 'pack-connection-failed', message });
}

/**
 * A sent call's outcome as the client answers it. Silence past the deadline is the `deadline-exceeded` the
 * service would have said itself: the caller meant the deadline, and the call was delivered (may have run).
 */
function answer(sent: Sent, subject: PackErrorExtra): Result<PackResponse, PackTransportError> {
  if (sent.kind === 'ok') {
    try {
      return asMessage(sent.value, subject);
    } finally {
      // The body's bytes are garbage once decoded: their room goes back to the budget.
      sent.value.release?.();
    }
  }
  if ('silent' in sent.error) return ok(packError('deadline-exceeded', sent.error.silent, subject));
  return err(sent.error);
}

function decode(reply: RelayResponse): Result<unknown, PackTransportError> {
  try {
    return ok(JSON.parse(reply.body.toString('utf8')));
  } catch {
    return err({
      code: 'pack-bad-reply',
      message: 'The pack service answered 200 with a body that is not JSON',
      status: 200,
    });
  }
}

function asMessage(reply: RelayResponse, subject: PackErrorExtra): Result<PackResponse, PackTransportError> {
  const decoded = decode(reply);
  return decoded.kind === 'err' ? decoded : ok(replyMessage(decoded.value, subject));
}

function asInfo(reply: RelayResponse): Result<PackInfo, PackTransportError> {
  const decoded = decode(reply);
  if (decoded.kind === 'err') return decoded;
  const info = decoded.value as Partial<PackInfo> | null;
  if (
    typeof info !== 'object' ||
    info === null ||
    info.protocol !== PACK_PROTOCOL_VERSION ||
    typeof info.packId !== 'string' ||
    !Array.isArray(info.tools) ||
    !Array.isArray(info.checks)
  ) {
    return err({
      code: 'pack-bad-reply',
      message: 'The pack service answered /v1/info with no protocol 2 info',
      status: 200,
    });
  }
  return ok(info as PackInfo);
}

/**
 * Creates a protocol v2 client over a keep-alive connection pool. Never throws: every call resolves to
 * a v2 message or a `PackTransportError` saying whether the call may have run.
 */
export function createPackServiceClient(options: PackServiceClientOptions): PackServiceClient {
  const ownPool = options.dispatcher === undefined;
  const dispatcher = options.dispatcher ?? new Agent({ keepAliveTimeout: 4_000, connections: 64 });
  return {
    async invoke(call) {
      const tool = typeof call.tool === 'string' ? { id: call.tool } : call.tool;
      const body = JSON.stringify({ v: PACK_PROTOCOL_VERSION, kind: 'invoke', tool, input: call.input, ctx: call.ctx });
      const reply = await send(options, dispatcher, {
        route: '/v1/invoke',
        body,
        deadlineMs: call.deadlineMs,
        runId: call.ctx.runId,
        requestId: call.ctx.requestId,
        traceparent: outboundTraceparent(call.traceparent),
        signal: call.signal,
      });
      return answer(reply, { toolId: tool.id });
    },
    async check(call) {
      const check = typeof call.check === 'string' ? { id: call.check } : call.check;
      const body = JSON.stringify({
        v: PACK_PROTOCOL_VERSION,
        kind: 'check-invoke',
        check,
        config: call.config,
        trace: call.trace,
      });
      const reply = await send(options, dispatcher, {
        route: '/v1/invoke',
        body,
        deadlineMs: call.deadlineMs,
        runId: call.runId ?? call.trace.runId,
        requestId: call.requestId,
        traceparent: outboundTraceparent(call.traceparent),
        signal: call.signal,
      });
      return answer(reply, { checkId: check.id });
    },
    async info(infoOptions) {
      const reply = await send(options, dispatcher, { route: '/v1/info', signal: infoOptions?.signal });
      if (reply.kind === 'ok') return asInfo(reply.value);
      if ('silent' in reply.error) return err({ code: 'pack-connection-failed', message: reply.error.silent });
      return err(reply.error);
    },
    async close() {
      if (ownPool) await dispatcher.close();
    },
  };
}
