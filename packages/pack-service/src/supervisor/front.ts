import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  callDeadlineMs,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_OUTPUT_BYTES,
  PACK_HEADERS,
  packError,
} from '@kindgi/protocol';
import { SpanKind } from '@opentelemetry/api';
import { endSpan, startSpanUnder, traceparentOf } from '../service/spans.js';
import { parseTimeoutMs, readBody, sendError, sendJson } from '../transport/http-reply.js';
import { NOT_DELIVERED_RETRY_AFTER_MS, REPLY_TOO_LARGE, type RelayCall, relay } from '../transport/relay.js';
import { tokenChecker } from '../transport/token.js';
import type { CallHolds, FrontState } from './hold.js';

/** What the front needs from the supervisor: the token, its state per call, and the hold for calls. */
export interface FrontOptions {
  token: string;
  /** Whether a child serves (and which), one is coming, or none will. */
  state: () => FrontState;
  /** Where calls wait while a child is coming. */
  holds: CallHolds;
  /** How long a call may be held in all (the call's own `kindgi-timeout-ms` bounds it too). */
  holdMs: number;
  maxBodyBytes?: number;
  /** The largest child reply relayed; past it the call is answered 502 `Reply too large`. */
  maxReplyBytes?: number;
}

/** Tries per call: each retry needs a child other than the one that just refused the call. */
const MAX_ATTEMPTS = 5;

const NO_SERVICE = 'no pack service';
const RETRY = { 'retry-after': String(NOT_DELIVERED_RETRY_AFTER_MS / 1000) };

function unavailable(res: ServerResponse): void {
  sendError(res, 503, NO_SERVICE, {}, RETRY);
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * The v2 `deadline-exceeded` for a child silent past the deadline and its grace: what the child would have
 * answered itself, so a caller gets the same reply whichever of them gave up first. The call may have run.
 */
function silent(res: ServerResponse, message: string): void {
  sendJson(res, 200, JSON.stringify(packError('deadline-exceeded', `${message}; the call may have run`)));
}

/**
 * Forwards to the serving child, holding the call while one is coming. A call refused by a child that was
 * just replaced or just died (it did not run) goes to the next child; the time spent held comes off the
 * deadline (the caller's, else the one default) the child is given, so the caller's budget holds end to end.
 */
async function forward(res: ServerResponse, options: FrontOptions, call: RelayCall): Promise<void> {
  const abort = new AbortController();
  const onClose = (): void => {
    // The caller left before the reply: closing the child's connection makes it answer the handler `cancelled`.
    if (!res.writableFinished) abort.abort();
  };
  res.once('close', onClose);
  try {
    const callDeadline = callDeadlineMs(call.deadlineMs);
    let budget = Math.min(options.holdMs, callDeadline);
    let heldMs = 0;
    let avoid: string | undefined;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const got = await options.holds.acquire({ res, boundMs: budget, avoid });
      if (got.kind === 'left') {
        res.destroy();
        return;
      }
      if (got.kind === 'unavailable') return unavailable(res);
      heldMs += got.heldMs;
      budget -= got.heldMs;
      const deadlineMs = Math.max(1, callDeadline - heldMs);
      const outcome = await relay(got.target, {
        ...call,
        deadlineMs,
        signal: abort.signal,
        maxReplyBytes: options.maxReplyBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
      });
      if (outcome.kind === 'ok') {
        const { status, headers, body } = outcome.value;
        if (res.destroyed) return;
        res.writeHead(status, { ...headers, 'content-length': body.length });
        res.end(body);
        return;
      }
      if (outcome.error.code === 'aborted') {
        res.destroy();
        return;
      }
      if (outcome.error.code === 'reply-too-large') {
        sendError(res, 502, `${REPLY_TOO_LARGE}: ${outcome.error.message}`);
        return;
      }
      if (outcome.error.code === 'no-reply') {
        sendError(res, 502, 'pack service died during the call');
        return;
      }
      if (outcome.error.code === 'silent') {
        if (call.route === '/v1/info') return sendError(res, 502, outcome.error.message);
        return silent(res, outcome.error.message);
      }
      // Not delivered: that child is going away (replaced, or dead and not yet noticed). The call did not run.
      avoid = got.target.url;
    }
    unavailable(res);
  } finally {
    res.off('close', onClose);
  }
}

/**
 * The supervisor's HTTP front: health routes, token check, then `POST /v1/invoke` and `GET /v1/info`
 * relayed to whichever child serves, or held while one is coming. Routes match the exact path, query removed.
 */
export function createFrontHandler(options: FrontOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const limit = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const tokenMatches = tokenChecker(options.token);
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const method = req.method ?? 'GET';
    const routes: Record<string, string> = {
      '/healthz': 'GET',
      '/readyz': 'GET',
      '/v1/info': 'GET',
      '/v1/invoke': 'POST',
    };
    const wanted = path === undefined ? undefined : routes[path];
    if (wanted === undefined) return sendError(res, 404, `No route ${req.url}`);
    if (method !== wanted) return sendError(res, 405, `Use ${wanted}`);
    if (path === '/healthz') return sendJson(res, 200, '{"status":"ok"}');
    if (path === '/readyz') {
      return options.state().kind === 'serving' ? sendJson(res, 200, '{"status":"ready"}') : unavailable(res);
    }
    if (!tokenMatches(req.headers[PACK_HEADERS.token])) {
      return sendError(res, 401, 'Bad pack token');
    }
    // Nothing serves and nothing is coming: refuse before reading the body.
    if (options.state().kind === 'unavailable') return unavailable(res);
    const ids: RelayCall = {
      deadlineMs: parseTimeoutMs(req.headers[PACK_HEADERS.timeoutMs]),
      runId: header(req, PACK_HEADERS.runId),
      requestId: header(req, PACK_HEADERS.requestId),
      traceparent: header(req, PACK_HEADERS.traceparent),
    };
    if (path === '/v1/info') {
      void forward(res, options, { ...ids, route: '/v1/info' });
      return;
    }
    void readBody(req, limit).then((read) => {
      if (read.kind === 'aborted') return;
      if (read.kind === 'too-large') return sendError(res, 413, 'Request body too large');
      const body = read.body;
      const contentType = req.headers['content-type'] ?? null;
      // The relay hop's span (recording only when the host registered an OpenTelemetry SDK): the child's
      // call span is its child, so the hop is sent on as the `traceparent`.
      const span = startSpanUnder('relay /v1/invoke', SpanKind.SERVER, ids.traceparent, {});
      const call = { ...ids, route: '/v1/invoke', body, contentType } as const;
      if (span === undefined) return forward(res, options, call);
      const traceparent = traceparentOf(span) ?? ids.traceparent;
      return forward(res, options, { ...call, traceparent }).finally(() => {
        endSpan(span, res.statusCode === 200 ? 'ok' : `http-${res.statusCode}`);
      });
    });
  };
}
