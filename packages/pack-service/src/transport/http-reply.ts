import type { IncomingMessage, ServerResponse } from 'node:http';
import { PACK_HEADERS } from '@kindgi/protocol';

/** The content type of every reply. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** Writes a JSON reply in one piece. A reply on a closed socket is dropped. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, {
    'content-type': JSON_CONTENT_TYPE,
    'content-length': String(Buffer.byteLength(body)),
    ...headers,
  });
  res.end(body);
}

/**
 * `sendJson` for the 200 of a call: the same headers in the same order (content type, length, duration,
 * artifact version), passed as a flat list so no header object is built per call.
 */
export function sendCallReply(res: ServerResponse, body: string, durationMs: number, artifactVersion: string): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(200, [
    'content-type',
    JSON_CONTENT_TYPE,
    'content-length',
    String(Buffer.byteLength(body)),
    PACK_HEADERS.durationMs,
    String(durationMs),
    PACK_HEADERS.artifactVersion,
    artifactVersion,
  ]);
  res.end(body);
}

/** A transport-level reply: `{"error": …}` plus any extra fields. */
export function sendError(
  res: ServerResponse,
  status: number,
  error: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, JSON.stringify({ error, ...extra }), headers);
}

/** How reading a request body ended. */
export type BodyOutcome = { kind: 'ok'; body: Buffer } | { kind: 'too-large'; bytes: number } | { kind: 'aborted' };

// setTimeout fires at once for delays beyond a signed 32-bit millisecond count.
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The one reader of `kindgi-timeout-ms` (service and front): a positive integer of milliseconds, capped
 * at what a timer can wait; anything else is `undefined` (the caller's default applies).
 */
export function parseTimeoutMs(header: string | string[] | undefined): number | undefined {
  const raw = Array.isArray(header) ? header[0] : header;
  if (raw === undefined || !/^\s*\d+\s*$/.test(raw)) return undefined;
  const value = Number(raw);
  return value > 0 ? Math.min(value, MAX_TIMER_MS) : undefined;
}

/**
 * Reads a request body to its end. Past `limit` bytes it keeps reading but stops keeping, so the caller
 * gets a clean 413 on a connection that stays usable.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<BodyOutcome> {
  return new Promise((resolve) => readBodyThen(req, limit, resolve));
}

/** `readBody` with a callback, called once: the call path saves the promise and its microtask turn. */
export function readBodyThen(req: IncomingMessage, limit: number, done: (outcome: BodyOutcome) => void): void {
  const chunks: Buffer[] = [];
  let bytes = 0;
  let finished = false;
  const finish = (outcome: BodyOutcome): void => {
    if (finished) return;
    finished = true;
    done(outcome);
  };
  req.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes <= limit) chunks.push(chunk);
    else chunks.length = 0;
  });
  req.on('end', () => {
    if (bytes > limit) finish({ kind: 'too-large', bytes });
    else finish({ kind: 'ok', body: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, bytes) });
  });
  req.on('error', () => finish({ kind: 'aborted' }));
  req.on('close', () => {
    if (!req.complete) finish({ kind: 'aborted' });
  });
}
