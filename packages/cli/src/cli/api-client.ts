import { err, messageOf, ok, type Result } from '@kindgi/protocol';
import type { CliFailure } from './output.js';

/** Where a command sends API requests: the base URL (`http://127.0.0.1:8787`) and the bearer token. */
export interface ApiTarget {
  readonly url: string;
  readonly token: string;
}

/** One API request. */
export interface ApiRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** The path and query, such as `/v1/secrets?env=staging`. */
  readonly path: string;
  readonly body?: unknown;
}

/** A 2xx answer: its status and parsed JSON body. */
export interface ApiReply {
  readonly status: number;
  readonly body: unknown;
}

// An API answer the CLI prints: a tool's output is bounded by the server too (10 MiB); this is a backstop.
const MAX_REPLY_BYTES = 32 * 1024 * 1024;

async function readCapped(response: Response): Promise<string | undefined> {
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += chunk.byteLength;
    if (size > MAX_REPLY_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function envelopeFailure(status: number, body: unknown, text: string): CliFailure {
  const error = (body as { error?: { code?: unknown; message?: unknown; details?: unknown } } | undefined)?.error;
  if (error && typeof error.code === 'string' && typeof error.message === 'string') {
    const details =
      error.details && typeof error.details === 'object' ? { details: error.details as Record<string, unknown> } : {};
    return { code: error.code, message: `${error.code}: ${error.message}`, ...details };
  }
  return { code: `http-${status}`, message: `the server answered ${status}: ${text.slice(0, 200)}` };
}

/**
 * Sends one request to the Kindgi API and parses the JSON answer. Never throws: a transport failure is
 * `server-unreachable`, a non-2xx answer is the API's error envelope (`{error: {code, message}}`) as a failure.
 */
export async function apiRequest(target: ApiTarget, request: ApiRequest): Promise<Result<ApiReply, CliFailure>> {
  let response: Response;
  try {
    response = await fetch(new URL(request.path, target.url), {
      method: request.method,
      headers: {
        authorization: `Bearer ${target.token}`,
        accept: 'application/json',
        ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
    });
  } catch (cause) {
    const reason = (cause as { cause?: unknown }).cause ?? cause;
    return err({ code: 'server-unreachable', message: `cannot reach ${target.url}: ${messageOf(reason)}` });
  }
  let text: string | undefined;
  try {
    text = await readCapped(response);
  } catch (cause) {
    return err({ code: 'server-unreachable', message: `the answer from ${target.url} broke off: ${messageOf(cause)}` });
  }
  if (text === undefined) {
    return err({ code: 'reply-too-large', message: `the answer is over ${MAX_REPLY_BYTES} bytes` });
  }
  let body: unknown;
  try {
    body = text === '' ? null : JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!response.ok) return err(envelopeFailure(response.status, body, text));
  if (body === undefined) {
    return err({ code: 'bad-reply', message: `the server's answer is not JSON: ${text.slice(0, 200)}` });
  }
  return ok({ status: response.status, body });
}
