import type { ModelMessage, ModelResponse, ModelTool, ModelToolCall, ModelUsage } from '@kindgi/bindings';
import type OpenAI from 'openai';
import type { ToolNameMap } from './tool-names.js';

type ChatMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;
type ChatTool = OpenAI.Chat.Completions.ChatCompletionTool;
type Chunk = OpenAI.Chat.Completions.ChatCompletionChunk;
type Completion = OpenAI.Chat.Completions.ChatCompletion;

function toChatMessage(message: ModelMessage, names: ToolNameMap): ChatMessage {
  if (message.role === 'tool') return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
  if (message.role !== 'assistant') return { role: message.role, content: message.content };
  const calls = message.toolCalls ?? [];
  if (calls.length === 0) return { role: 'assistant', content: message.content ?? '' };
  return {
    role: 'assistant',
    content: message.content,
    tool_calls: calls.map((call) => ({
      id: call.id,
      type: 'function' as const,
      function: { name: names.nameOf(call.toolId), arguments: call.arguments },
    })),
  };
}

/** The conversation in the chat-completions wire, tool ids as function names. */
export function toChatMessages(messages: readonly ModelMessage[], names: ToolNameMap): ChatMessage[] {
  return messages.map((message) => toChatMessage(message, names));
}

/** The tools as functions. */
export function toChatTools(tools: readonly ModelTool[], names: ToolNameMap): ChatTool[] {
  return tools.map((tool) => ({
    type: 'function' as const,
    function: {
      name: names.nameOf(tool.toolId),
      ...(tool.description !== undefined ? { description: tool.description } : {}),
      parameters: (typeof tool.inputSchema === 'object' ? tool.inputSchema : { type: 'object' }) as Record<
        string,
        unknown
      >,
    },
  }));
}

function usageOf(usage: OpenAI.CompletionUsage | null | undefined): ModelUsage | undefined {
  if (!usage) return undefined;
  return { inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens, totalTokens: usage.total_tokens };
}

/** A function name mapped back: a name the map never gave is kept, and the kernel finds no such tool. */
function toolIdOf(name: string, names: ToolNameMap): string {
  return names.toolIdOf(name) ?? name;
}

/** A non-streamed completion in the binding's words; undefined when it has no choice. */
export function fromCompletion(completion: Completion, names: ToolNameMap): ModelResponse | undefined {
  const choice = completion.choices?.[0];
  if (!choice?.message) return undefined;
  const toolCalls: ModelToolCall[] = (choice.message.tool_calls ?? []).flatMap((call) =>
    call.type === 'function'
      ? [{ id: call.id, toolId: toolIdOf(call.function.name, names), arguments: call.function.arguments ?? '' }]
      : [],
  );
  const response: ModelResponse = {
    content: choice.message.content ?? null,
    toolCalls,
    finishReason: choice.finish_reason ?? 'stop',
    model: completion.model,
  };
  const usage = usageOf(completion.usage);
  if (usage) response.usage = usage;
  return response;
}

/** Gathers a stream's chunks: text, tool calls assembled from their fragments by index, usage. */
export class StreamedCompletion {
  #content = '';
  #sawContent = false;
  #calls = new Map<number, { id: string; name: string; arguments: string }>();
  #finishReason: string | undefined;
  #model = '';
  #usage: ModelUsage | undefined;
  #choices = 0;

  /** Adds a chunk; returns the text it carried, if any. */
  add(chunk: Chunk): string | undefined {
    if (chunk.model) this.#model = chunk.model;
    const usage = usageOf(chunk.usage);
    if (usage) this.#usage = usage;
    const choice = chunk.choices?.[0];
    if (!choice) return undefined;
    this.#choices += 1;
    if (choice.finish_reason) this.#finishReason = choice.finish_reason;
    for (const fragment of choice.delta?.tool_calls ?? []) {
      const call = this.#calls.get(fragment.index) ?? { id: '', name: '', arguments: '' };
      if (fragment.id) call.id = fragment.id;
      if (fragment.function?.name) call.name += fragment.function.name;
      if (fragment.function?.arguments) call.arguments += fragment.function.arguments;
      this.#calls.set(fragment.index, call);
    }
    const text = choice.delta?.content;
    if (typeof text === 'string' && text !== '') {
      this.#content += text;
      this.#sawContent = true;
      return text;
    }
    return undefined;
  }

  /** The response, or undefined when the stream carried no choice at all. */
  response(names: ToolNameMap): ModelResponse | undefined {
    if (this.#choices === 0) return undefined;
    const toolCalls = [...this.#calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, call]) => ({
        id: call.id || `call_${index}`,
        toolId: toolIdOf(call.name, names),
        arguments: call.arguments,
      }));
    const response: ModelResponse = {
      content: this.#sawContent ? this.#content : null,
      toolCalls,
      finishReason: this.#finishReason ?? 'stop',
      model: this.#model,
    };
    if (this.#usage) response.usage = this.#usage;
    return response;
  }
}
