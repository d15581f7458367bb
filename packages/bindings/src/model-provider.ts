import type { JsonSchema, Result } from '@kindgi/protocol';

/** A tool call the model asked for: its id (the provider's, echoed back with the result), the tool, its arguments as sent. */
export interface ModelToolCall {
  id: string;
  /** The Kindgi tool id (`acme.lookup`), mapped back from the provider's function name. */
  toolId: string;
  /** The arguments as the model wrote them: JSON text, possibly malformed. */
  arguments: string;
}

/** One message of a conversation, in no provider's words. */
export type ModelMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string | null; toolCalls?: ModelToolCall[] }
  | { role: 'tool'; toolCallId: string; content: string };

/** A tool the model may call: the Kindgi id, what it does, the JSON Schema of its arguments. */
export interface ModelTool {
  toolId: string;
  description?: string;
  inputSchema: JsonSchema;
}

/** Tokens one model call used, as the provider reported them. */
export interface ModelUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

/** One model call. */
export interface ModelRequest {
  messages: ModelMessage[];
  tools: ModelTool[];
  /** Ends the call (the turn was cancelled). */
  signal?: AbortSignal;
  /** Text of the answer as it streams in. */
  onText?(delta: string): void;
}

/** What the model answered: text, tool calls, or both. */
export interface ModelResponse {
  content: string | null;
  toolCalls: ModelToolCall[];
  /** The provider's reason for stopping (`stop`, `tool_calls`, `length`, …). */
  finishReason: string;
  /** The model that answered, as the provider names it. */
  model: string;
  /** Absent when the provider reported none. */
  usage?: ModelUsage;
}

/** Why a model call gave no answer. */
export interface ModelError {
  /**
   * `model-unavailable`: unreachable, or 429/5xx after the retries; `model-timeout`: no complete answer
   * within the deadline; `model-bad-response`: an answer that is not the API's; `model-refused`: a 4xx
   * (bad key, unknown model, a request it refuses); `model-aborted`: the caller's signal.
   */
  code: 'model-unavailable' | 'model-timeout' | 'model-bad-response' | 'model-refused' | 'model-aborted';
  message: string;
  status?: number;
}

/** A model, as the runtime calls it: one chat completion with tools. Implementations never throw. */
export interface ModelProviderBinding {
  complete(request: ModelRequest): Promise<Result<ModelResponse, ModelError>>;
}

/** The configured models by name (`default` and whatever else `models` names). */
export interface ModelCatalog {
  get(name: string): ModelProviderBinding | undefined;
}
