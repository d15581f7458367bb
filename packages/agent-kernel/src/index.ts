export { AGENT_TURN_ERROR_CODES, type AgentTurnError, type AgentTurnErrorCode } from './errors.js';
export { inScope, turnTrace } from './guardrails.js';
export {
  DEFAULT_MAX_STEPS,
  DEFAULT_MAX_TOOL_CALLS,
  DRY_RUN_STOPPING_EFFECTS,
  MAX_CONVERSATION_CHARS,
  MAX_CONVERSATION_MESSAGES,
  MAX_MESSAGE_CHARS,
  MAX_TOOL_RESULT_CHARS,
} from './limits.js';
export {
  createModelCatalog,
  DEFAULT_MODEL_RETRIES,
  DEFAULT_MODEL_TIMEOUT_MS,
  type ModelEntry,
  type ModelsConfig,
  modelEntrySchema,
  modelsConfigSchema,
} from './model/config.js';
export { createOpenAiCompatibleModel, type OpenAiCompatibleOptions } from './model/openai-compatible.js';
export { createToolNameMap, FUNCTION_NAME_PATTERN, type ToolNameMap } from './model/tool-names.js';
export {
  type ApprovalDecision,
  type ResumeTurnInput,
  resumeAgentTurn,
  runAgentTurn,
} from './run-turn.js';
export type {
  AgentKernelBindings,
  AgentTurnInput,
  ApprovalRequest,
  GuardrailEvaluationError,
  ModelCallRecord,
  ResolvedTool,
  TraceToolCall,
  TraceToolResult,
  TurnEvent,
  TurnGates,
  TurnOutcome,
  TurnState,
  TurnUsage,
  WouldCall,
} from './types.js';
