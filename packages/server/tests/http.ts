import type { LogRecord } from './harness.js';

/** A JSON request against the API with the bearer token. */
export async function api(
  url: string,
  token: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; body: unknown }> {
  const init: RequestInit = { method, headers: { authorization: `Bearer ${token}`, ...headers } };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] = 'application/json';
  }
  const response = await fetch(`${url}${path}`, init);
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON: the caller sees the text.
  }
  return { status: response.status, headers: response.headers, body: parsed };
}

/** One Server-Sent Event. */
export interface SseEvent {
  event: string;
  id?: string;
  data: string;
}

/** Opens a run's SSE stream; resolves once the server answered (the stream is then in flight). */
export async function openRunStream(
  url: string,
  token: string,
  runId: string,
): Promise<{ events(): Promise<SseEvent[]> }> {
  const response = await fetch(`${url}/v1/runs/${runId}/stream`, { headers: { authorization: `Bearer ${token}` } });
  if (response.status !== 200) throw new Error(`stream answered ${response.status}: ${await response.text()}`);
  return { events: async () => parseSse(await response.text()) };
}

/** Reads a run's SSE stream to its end (the server ends it after the terminal event). */
export async function readRunStream(url: string, token: string, runId: string): Promise<SseEvent[]> {
  return (await openRunStream(url, token, runId)).events();
}

function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const frame of text.split('\n\n')) {
    const event: SseEvent = { event: 'message', data: '' };
    let fields = 0;
    for (const line of frame.split('\n')) {
      const colon = line.indexOf(':');
      if (colon <= 0) continue;
      const name = line.slice(0, colon);
      const value = line.slice(colon + 1).replace(/^ /, '');
      if (name === 'event') event.event = value;
      else if (name === 'id') event.id = value;
      else if (name === 'data') event.data = event.data === '' ? value : `${event.data}\n${value}`;
      else continue;
      fields++;
    }
    if (fields > 0) events.push(event);
  }
  return events;
}

/** The step of an `acme.slow-report` "report step done" pack log record whose call asked for `of` steps. */
export function slowReportStep(record: LogRecord, of: number): number | undefined {
  const inner = record.record as Record<string, unknown> | undefined;
  if (record.event !== 'pack-log' || inner?.message !== 'report step done' || inner.of !== of) return undefined;
  return inner.step as number;
}
