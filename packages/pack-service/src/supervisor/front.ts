import type { IncomingMessage, ServerResponse } from 'node:http';
import { DEFAULT_MAX_BODY_BYTES, PACK_HEADERS } from '@kindgi/protocol';
import { type RelayCall, type RelayTarget, relay } from '../relay/relay.js';
import { tokenMatches } from './token.js';

/** What the front needs from the supervisor: the token and, per call, the child serving now. */
export interface FrontOptions {
  token: string;
  /** The serving child's relay target, or undefined while none serves. */
  current: () => RelayTarget | undefined;
  maxBodyBytes?: number;
}

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

/** Forwards to the serving child; a call refused by a child that was just replaced goes to its successor. */
async function forward(res: ServerResponse, options: FrontOptions, call: RelayCall): Promise<void> {
  const abort = new AbortController();
  const onClose = (): void => {
    // The caller left before the reply: closing the child's connection makes it answer the handler `cancelled`.
    if (!res.writableFinished) abort.abort();
  };
  res.once('close', onClose);
  try {
    let target = options.current();
    for (let attempt = 0; attempt < 2 && target; attempt++) {
      const outcome = await relay(target, { ...call, signal: abort.signal });
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
      // Refused: that child just went away. Its successor, if one already serves, gets the call.
      const next = options.current();
      target = next?.url === target.url ? undefined : next;
    }
    unavailable(res);
  } finally {
    res.off('close', onClose);
  }
}

/**
 * The supervisor's HTTP front: health routes, token check, then `POST /v1/invoke` and `GET /v1/info`
 * relayed to whichever child serves. Routes match the exact path, query removed.
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
    if (path === '/readyz') return options.current() ? reply(res, 200, { status: 'ready' }) : unavailable(res);
    if (!tokenMatches(req.headers[PACK_HEADERS.token], options.token)) {
      return reply(res, 401, { error: 'Bad pack token' });
    }
    if (!options.current()) return unavailable(res);
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
