import { type SpecShape, specProblems } from './schemas.js';

/** A reply as the suite inspects it. */
export interface Reply {
  status: number;
  headers: Headers;
  /** Parsed JSON, or the raw text when the body is not JSON. */
  body: unknown;
  text: string;
}

/** Sends one request and reads the whole reply. */
export async function send(base: string, path: string, init: RequestInit = {}): Promise<Reply> {
  const res = await fetch(new URL(path, base), init);
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Left as text: the checks below report it.
  }
  return { status: res.status, headers: res.headers, body, text };
}

/** Headers of an authorised JSON call. */
export function jsonHeaders(token: string, extra: Record<string, string> = {}): Record<string, string> {
  return { 'kindgi-pack-token': token, 'content-type': 'application/json', ...extra };
}

/** Throws with the reply and the spec's complaints unless `body` matches `shape`. */
export function expectShape(shape: SpecShape, reply: Reply): void {
  const problems = specProblems(shape, reply.body);
  if (problems.length > 0) {
    throw new Error(`Reply (HTTP ${reply.status}) does not match ${shape}: ${problems.join('; ')}\n${reply.text}`);
  }
}

/** The shape the specs give a reply of this status on this route. */
export function shapeFor(path: string, status: number): SpecShape {
  if (status !== 200) return 'transportError';
  if (path.startsWith('/healthz') || path.startsWith('/readyz')) return 'health';
  if (path.startsWith('/v1/info')) return 'info';
  return 'response';
}

/** Sends a request and checks its reply against the shape the specs give it. */
export async function sendChecked(base: string, path: string, init: RequestInit = {}): Promise<Reply> {
  const reply = await send(base, path, init);
  expectShape(shapeFor(path, reply.status), reply);
  return reply;
}
