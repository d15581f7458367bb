import type { IncomingMessage, ServerResponse } from 'node:http';
import { DEFAULT_MAX_BODY_BYTES, PACK_HEADERS } from '@kindgi/protocol';
import { type RelayCall, relay } from '../relay/relay.js';
import type { CallHolds, FrontState } from './hold.js';
import { tokenMatches } from './token.js';

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
}

/** Tries per call: each retry needs a child other than the one that just refused the call. */
const MAX_ATTEMPTS = 5;

const NO_SERVICE = { error: 'no pack service' };

function reply(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

function unavailable(res: ServerResponse): void {
  reply(res, 503, NO_SERVICE, { 'retry-after': '1' });
}

/** Reads the body whole, or reports that it passed the limit (after reading it to the end, like the service). */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | 'too-large' | 'aborted'> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    req.once('end', () => resolve(size > limit ? 'too-large' : Buffer.concat(chunks)));
    req.once('error', () => resolve('aborted'));
    req.once('close', () => {
      if (!req.complete) resolve('aborted');
    });
  });
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function positiveInteger(value: string | undefined): number | undefined {
  if (value === undefined || !/^\d+$/.test(value.trim())) return undefined;
  const parsed = Number(value);
  return Number.isSafeInteger(parsed) && parsed > 0 ? parsed : undefined;
}

/**
 * Forwards to the serving child, holding the call while one is coming. A call refused by a child that was
 * just replaced or just died (it did not run) goes to the next child; the time spent held comes off the
 * deadline the child is given, so the caller's budget holds end to end.
 */
async function forward(res: ServerResponse, options: FrontOptions, call: RelayCall): Promise<void> {
  const abort = new AbortController();
  const onClose = (): void => {
    // The caller left before the reply: closing the child's connection makes it answer the handler `cancelled`.
    if (!res.writableFinished) abort.abort();
  };
  res.once('close', onClose);
  try {
    let budget = Math.min(options.holdMs, call.deadlineMs ?? Number.POSITIVE_INFINITY);
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
      const deadlineMs = call.deadlineMs === undefined ? undefined : Math.max(1, call.deadlineMs - heldMs);
      const outcome = await relay(got.target, { ...call, deadlineMs, signal: abort.signal });
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
      if (outcome.error.code === 'no-reply') {
        reply(res, 502, { error: 'pack service died during the call' });
        return;
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
    if (wanted === undefined) return reply(res, 404, { error: `No route ${req.url}` });
    if (method !== wanted) return reply(res, 405, { error: `Use ${wanted}` });
    if (path === '/healthz') return reply(res, 200, { status: 'ok' });
    if (path === '/readyz') {
      return options.state().kind === 'serving' ? reply(res, 200, { status: 'ready' }) : unavailable(res);
    }
    if (!tokenMatches(req.headers[PACK_HEADERS.token], options.token)) {
      return reply(res, 401, { error: 'Bad pack token' });
    }
    // Nothing serves and nothing is coming: refuse before reading the body.
    if (options.state().kind === 'unavailable') return unavailable(res);
    const ids: RelayCall = {
      deadlineMs: positiveInteger(header(req, PACK_HEADERS.timeoutMs)),
      runId: header(req, PACK_HEADERS.runId),
      requestId: header(req, PACK_HEADERS.requestId),
      protocol: header(req, PACK_HEADERS.protocol),
      traceparent: header(req, PACK_HEADERS.traceparent),
    };
    if (path === '/v1/info') {
      void forward(res, options, { ...ids, route: '/v1/info' });
      return;
    }
    void readBody(req, limit).then((body) => {
      if (body === 'aborted') return;
      if (body === 'too-large') return reply(res, 413, { error: 'Request body too large' });
      const contentType = req.headers['content-type'] ?? null;
      return forward(res, options, { ...ids, route: '/v1/invoke', body, contentType });
    });
  };
}
