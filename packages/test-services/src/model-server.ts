import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A tool call the scripted model makes: the function name as the API carries it, the arguments' text. */
export interface ScriptedCall {
  name: string;
  arguments: string;
  id?: string;
}

/** One answer of the scripted model, chosen per request. */
export type ScriptStep =
  | { kind: 'text'; text: string }
  | { kind: 'tools'; calls: ScriptedCall[]; text?: string }
  | { kind: 'status'; status: number; retryAfter?: string; body?: string }
  | { kind: 'garbage' }
  /** Headers and a first chunk, then nothing: the stream hangs until the client gives up. */
  | { kind: 'hang' };

/** What the test sees of one request the model got. */
export interface ScriptedRequest {
  body: {
    model: string;
    stream?: boolean;
    stream_options?: { include_usage?: boolean };
    messages: { role: string; content?: string | null; tool_call_id?: string; tool_calls?: unknown[] }[];
    tools?: { type: string; function: { name: string; description?: string; parameters: unknown } }[];
    parallel_tool_calls?: boolean;
  };
  authorization: string | undefined;
}

export interface ScriptedModel {
  /** The API root (`http://127.0.0.1:<port>/v1`). */
  url: string;
  requests: ScriptedRequest[];
  close(): Promise<void>;
}

const USAGE = { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 };

function chunk(delta: unknown, finish: string | null = null): string {
  const body = {
    id: 'chatcmpl-s',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'scripted-1',
    choices: [{ index: 0, delta, finish_reason: finish }],
  };
  return `data: ${JSON.stringify(body)}\n\n`;
}

/** The answer as SSE chunks: text in two pieces, each tool call's name first and its arguments in two fragments. */
function streamed(step: Extract<ScriptStep, { kind: 'text' | 'tools' }>, usage: boolean): string {
  const out = [chunk({ role: 'assistant', content: '' })];
  const text = step.text ?? '';
  if (text !== '') out.push(chunk({ content: text.slice(0, 3) }), chunk({ content: text.slice(3) }));
  const calls = step.kind === 'tools' ? step.calls : [];
  calls.forEach((call, index) => {
    const id = call.id ?? `call_${index + 1}`;
    out.push(chunk({ tool_calls: [{ index, id, type: 'function', function: { name: call.name, arguments: '' } }] }));
    const half = Math.floor(call.arguments.length / 2);
    for (const part of [call.arguments.slice(0, half), call.arguments.slice(half)]) {
      if (part !== '') out.push(chunk({ tool_calls: [{ index, function: { arguments: part } }] }));
    }
  });
  out.push(chunk({}, calls.length > 0 ? 'tool_calls' : 'stop'));
  if (usage) {
    out.push(
      `data: ${JSON.stringify({ id: 'chatcmpl-s', object: 'chat.completion.chunk', created: 1, model: 'scripted-1', choices: [], usage: USAGE })}\n\n`,
    );
  }
  out.push('data: [DONE]\n\n');
  return out.join('');
}

function completion(step: Extract<ScriptStep, { kind: 'text' | 'tools' }>): string {
  const calls = step.kind === 'tools' ? step.calls : [];
  const message = {
    role: 'assistant',
    content: step.text ?? (calls.length > 0 ? null : ''),
    ...(calls.length > 0
      ? {
          tool_calls: calls.map((call, i) => ({
            id: call.id ?? `call_${i + 1}`,
            type: 'function',
            function: { name: call.name, arguments: call.arguments },
          })),
        }
      : {}),
  };
  const finish = calls.length > 0 ? 'tool_calls' : 'stop';
  return JSON.stringify({
    id: 'chatcmpl-s',
    object: 'chat.completion',
    created: 1,
    model: 'scripted-1',
    choices: [{ index: 0, message, finish_reason: finish }],
    usage: USAGE,
  });
}

function answer(res: ServerResponse, step: ScriptStep, request: ScriptedRequest): void {
  if (step.kind === 'status') {
    res.writeHead(step.status, {
      'content-type': 'application/json',
      ...(step.retryAfter ? { 'retry-after': step.retryAfter } : {}),
    });
    res.end(step.body ?? JSON.stringify({ error: { message: `scripted ${step.status}`, type: 'server_error' } }));
    return;
  }
  if (step.kind === 'garbage') {
    res.writeHead(200, { 'content-type': request.body.stream ? 'text/event-stream' : 'application/json' });
    res.end(request.body.stream ? 'data: {"choices": [not json\n\n' : '<html>not json</html>');
    return;
  }
  if (step.kind === 'hang') {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(chunk({ role: 'assistant', content: 'Thinking' }));
    return;
  }
  if (request.body.stream) {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.end(streamed(step, request.body.stream_options?.include_usage === true));
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(completion(step));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

/**
 * An OpenAI-compatible chat-completions server of the suite's own on 127.0.0.1, speaking the published wire
 * (SSE `data:` chunks with `choices[].delta.tool_calls[]` fragments, `[DONE]`, usage in a last chunk when
 * `stream_options.include_usage` asks; or one JSON completion), answering each request with the script's
 * next step (the last step repeats), or with what a script function makes of the request (its index and
 * body: a black-box test may pick the answer by the conversation so far).
 */
export async function startScriptedModel(
  script: ScriptStep[] | ((index: number, request: ScriptedRequest) => ScriptStep),
): Promise<ScriptedModel> {
  const requests: ScriptedRequest[] = [];
  const server = createServer(async (req, res) => {
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.writeHead(404).end();
      return;
    }
    const request: ScriptedRequest = {
      body: JSON.parse(await readBody(req)),
      authorization: req.headers.authorization,
    };
    const index = requests.length;
    requests.push(request);
    const step =
      typeof script === 'function'
        ? script(index, request)
        : (script[Math.min(index, script.length - 1)] as ScriptStep);
    answer(res, step, request);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
