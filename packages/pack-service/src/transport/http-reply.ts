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

/** Hears once how reading a request body ended. */
export interface BodySink {
  onBody(outcome: BodyOutcome): void;
}

/**
 * Reads a request body to its end. Past `limit` bytes it keeps reading but stops keeping, so the caller
 * gets a clean 413 on a connection that stays usable.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<BodyOutcome> {
  return new Promise((resolve) => readBodyThen(req, limit, { onBody: resolve }));
}

const ABORTED: BodyOutcome = Object.freeze({ kind: 'aborted' });
const READER = Symbol('kindgi.pack-service.body-reader');
type ReadRequest = IncomingMessage & { [READER]: BodyReader };

/** One body being read: its chunks so far and who hears of the end. */
class BodyReader {
  readonly chunks: Buffer[] = [];
  bytes = 0;
  #finished = false;

  constructor(
    readonly limit: number,
    readonly sink: BodySink,
  ) {}

  finish(outcome: BodyOutcome): void {
    if (this.#finished) return;
    this.#finished = true;
    this.sink.onBody(outcome);
  }
}

// The listeners are shared by every request (`this` is the request): no closures per call.
function onData(this: ReadRequest, chunk: Buffer): void {
  const reader = this[READER];
  reader.bytes += chunk.length;
  if (reader.bytes <= reader.limit) reader.chunks.push(chunk);
  else reader.chunks.length = 0;
}

function onEnd(this: ReadRequest): void {
  const { bytes, limit, chunks } = this[READER];
  if (bytes > limit) this[READER].finish({ kind: 'too-large', bytes });
  else
    this[READER].finish({
      kind: 'ok',
      body: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, bytes),
    });
}

// A failed read ends in `close` before the body's end: node:http emits a request's `error` only to
// listeners, so `close` alone covers it.
function onClose(this: ReadRequest): void {
  if (!this.complete) this[READER].finish(ABORTED);
}

/** `readBody` telling `sink` once: the call path saves the promise, its microtask turn and closures. */
export function readBodyThen(req: IncomingMessage, limit: number, sink: BodySink): void {
  (req as ReadRequest)[READER] = new BodyReader(limit, sink);
  req.on('data', onData);
  req.on('end', onEnd);
  req.on('close', onClose);
}
