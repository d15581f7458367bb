import type { ModelError, ModelProviderBinding, ModelRequest, ModelResponse } from '@kindgi/bindings';
import { err, ok, type Result } from '@kindgi/protocol';
import OpenAI from 'openai';
import { fromCompletion, StreamedCompletion, toChatMessages, toChatTools } from './openai-wire.js';
import { createToolNameMap } from './tool-names.js';

/** How to reach one model of an OpenAI-compatible chat-completions API. */
export interface OpenAiCompatibleOptions {
  /** The API root, such as `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`. */
  baseUrl: string;
  model: string;
  /** Servers that want none (a local model server) get a placeholder. */
  apiKey?: string;
  /** Bounds a whole model call: every attempt, the waits between them, and the stream to its end. */
  timeoutMs: number;
  /** Attempts after the first on 408, 409, 429 and 5xx (the client's own retry, honouring `Retry-After`). */
  maxRetries: number;
  /** Streams the answer (default true); false asks for one JSON completion. */
  stream?: boolean;
}

const NO_KEY = 'no-key';

function describe(thrown: unknown): string {
  return thrown instanceof Error ? thrown.message : String(thrown);
}

/** A failed call in the binding's words. `deadline` says whether our own deadline ended it. */
function modelError(thrown: unknown, deadline: AbortSignal, caller: AbortSignal | undefined): ModelError {
  if (deadline.aborted) return { code: 'model-timeout', message: 'The model gave no complete answer in time' };
  if (caller?.aborted || thrown instanceof OpenAI.APIUserAbortError) {
    return { code: 'model-aborted', message: 'The model call was cancelled' };
  }
  if (thrown instanceof OpenAI.APIConnectionTimeoutError) {
    return { code: 'model-timeout', message: `The model did not answer in time: ${describe(thrown)}` };
  }
  if (thrown instanceof OpenAI.APIConnectionError) {
    return { code: 'model-unavailable', message: `The model cannot be reached: ${describe(thrown)}` };
  }
  if (thrown instanceof OpenAI.APIError && typeof thrown.status === 'number') {
    const status = thrown.status;
    const retried = status === 408 || status === 409 || status === 429 || status >= 500;
    const code = retried ? 'model-unavailable' : 'model-refused';
    return { code, message: `The model answered ${status}: ${describe(thrown)}`, status };
  }
  return { code: 'model-bad-response', message: `The model's answer is not a chat completion: ${describe(thrown)}` };
}

/**
 * A model behind an OpenAI-compatible chat-completions API (OpenAI, Azure OpenAI, vLLM, Ollama, llama.cpp's
 * server, LiteLLM, OpenRouter), through the official `openai` client: streaming, tool calls (parallel ones
 * too), usage. Tool ids travel as function names the API accepts and are mapped back.
 */
export function createOpenAiCompatibleModel(options: OpenAiCompatibleOptions): ModelProviderBinding {
  const client = new OpenAI({
    baseURL: options.baseUrl,
    apiKey: options.apiKey ?? NO_KEY,
    timeout: options.timeoutMs,
    maxRetries: options.maxRetries,
    // Nothing of the process's OPENAI_* environment: the configuration says everything.
    organization: null,
    project: null,
  });
  const stream = options.stream ?? true;
  return {
    async complete(request: ModelRequest): Promise<Result<ModelResponse, ModelError>> {
      const deadline = new AbortController();
      const timer = setTimeout(() => deadline.abort(), options.timeoutMs);
      const signal = request.signal ? AbortSignal.any([deadline.signal, request.signal]) : deadline.signal;
      const names = createToolNameMap(request.tools.map((tool) => tool.toolId));
      const body = {
        model: options.model,
        messages: toChatMessages(request.messages, names),
        ...(request.tools.length > 0 ? { tools: toChatTools(request.tools, names), parallel_tool_calls: true } : {}),
      };
      try {
        let response: ModelResponse | undefined;
        if (stream) {
          const chunks = await client.chat.completions.create(
            { ...body, stream: true, stream_options: { include_usage: true } },
            { signal },
          );
          const gathered = new StreamedCompletion();
          for await (const chunk of chunks) {
            const text = gathered.add(chunk);
            if (text !== undefined) request.onText?.(text);
          }
          // An aborted stream ends its iteration quietly: what came so far is not a whole answer.
          if (signal.aborted) return err(modelError(undefined, deadline.signal, request.signal));
          response = gathered.response(names);
        } else {
          response = fromCompletion(
            await client.chat.completions.create({ ...body, stream: false }, { signal }),
            names,
          );
        }
        if (!response) return err({ code: 'model-bad-response', message: 'The model answered with no choice' });
        return ok(response);
      } catch (thrown) {
        return err(modelError(thrown, deadline.signal, request.signal));
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
