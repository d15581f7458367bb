import type {
  AgentRegistry,
  GuardrailDescriptor,
  ModelCatalog,
  ModelMessage,
  ModelToolCall,
  ModelUsage,
  PackCaller,
  RunViolation,
  ToolRegistry,
  ToolVersionDescriptor,
} from '@kindgi/bindings';

/** What a turn runs on, all passed in: nothing global. */
export interface AgentKernelBindings {
  /** The tenant's agents and every active version of their tools (all pack indexes). */
  agents: AgentRegistry;
  /** The tenant's guardrails. */
  tools: ToolRegistry;
  /** The one pack-call pipeline (deadline, secrets, telemetry, routing): tool calls and pack checks. */
  callPack: PackCaller;
  /** The configured models by name. */
  models: ModelCatalog;
  /** Ids of approval requests (default: random UUIDs). */
  newId?: () => string;
}

/** One agent turn to run. */
export interface AgentTurnInput {
  tenantId: string;
  runId: string;
  agentId: string;
  input: { message: string };
  /** The conversation before this turn (what earlier turns returned as `conversation`). */
  conversation?: ModelMessage[];
  /** Stops before the first tool that is not read-only or declares a side effect. */
  dryRun?: boolean;
  /** `runtime` (default) or `ci`: which guardrail scopes apply. */
  mode?: 'runtime' | 'ci';
  /** The flow the turn runs in, for guardrail scopes narrowed by `flows`. */
  flowId?: string;
  /** Each tool call's deadline (default: the pipeline's, 120 s). */
  toolDeadlineMs?: number;
  signal: AbortSignal;
  onEvent: (event: TurnEvent) => void;
}

/** A tool as the turn resolved it: one version, its schemas and declarations. */
export type ResolvedTool = ToolVersionDescriptor;

/** What a guardrail check sees of one tool call. */
export interface TraceToolCall {
  toolCallId: string;
  toolId: string;
  toolName: string;
  version: string;
  arguments: unknown;
}

/** What a guardrail check sees of one tool result. */
export interface TraceToolResult {
  toolCallId: string;
  toolId: string;
  output?: unknown;
  error?: { code: string; message: string };
}

/** One model call of a turn. */
export interface ModelCallRecord {
  step: number;
  model: string;
  finishReason: string;
  toolCalls: number;
  durationMs: number;
  usage?: ModelUsage;
}

/** A tool call waiting for someone to approve or deny it. */
export interface ApprovalRequest {
  approvalId: string;
  toolCallId: string;
  toolId: string;
  version: string;
  arguments: unknown;
  /** `not-read-only`: the tool may change something; `listed`: the agent's `hitl.tools` names it. */
  reason: 'not-read-only' | 'listed';
}

/** Approval gates as the turn applies them. */
export interface TurnGates {
  enabled: boolean;
  tools: string[];
  exempt: string[];
}

/**
 * Everything a turn needs to go on, as JSON: what `suspended` returns and `resumeAgentTurn` takes. A run
 * store keeps it as it is.
 */
export interface TurnState {
  v: 1;
  tenantId: string;
  runId: string;
  agentId: string;
  agentVersion: string;
  mode: 'runtime' | 'ci';
  flowId?: string;
  dryRun: boolean;
  model: string;
  tools: ResolvedTool[];
  guardrails: GuardrailDescriptor[];
  toolErrors: string[];
  maxSteps: number;
  maxToolCalls: number;
  gates: TurnGates;
  toolDeadlineMs?: number;
  userInput: string;
  messages: ModelMessage[];
  toolCalls: TraceToolCall[];
  toolResults: TraceToolResult[];
  modelCalls: ModelCallRecord[];
  approved: string[];
  denied: string[];
  /** The model's last tool calls, until each is answered; `approval` while one waits for a decision. */
  pending?: { calls: ModelToolCall[]; answered: Record<string, string>; approval?: ApprovalRequest };
}

/** Tokens a turn used, summed over its model calls. */
export interface TurnUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

/** A guardrail whose check could not be evaluated: an error, not a violation. */
export interface GuardrailEvaluationError {
  guardrailId: string;
  checkId: string;
  action: string;
  code: string;
  message: string;
}

/** A tool call a dry run would have made. */
export interface WouldCall {
  toolCallId: string;
  toolId: string;
  version: string;
  arguments: unknown;
}

/** How a turn ended, when it did not fail. */
export type TurnOutcome =
  | {
      status: 'completed';
      answer: string;
      violations: RunViolation[];
      guardrailErrors: GuardrailEvaluationError[];
      usage: TurnUsage;
      modelCalls: ModelCallRecord[];
      /** The conversation with this turn appended: the next turn's `conversation`. */
      conversation: ModelMessage[];
    }
  | { status: 'suspended'; approval: ApprovalRequest; state: TurnState; usage: TurnUsage }
  | {
      status: 'dry-run-stopped';
      /** The first call the dry run would not make, and why. */
      stoppedAt: WouldCall & { reason: 'mutating' | 'effect'; effect?: string };
      /** Every call the model asked for at that step. */
      wouldCall: WouldCall[];
      usage: TurnUsage;
    };

/** What a turn reports as it goes (a run's journal and its SSE stream carry them). */
export type TurnEvent =
  | { kind: 'model.call'; step: number; record: ModelCallRecord }
  | { kind: 'model.text'; step: number; delta: string }
  | { kind: 'tool.call'; call: TraceToolCall }
  | { kind: 'tool.result'; result: TraceToolResult; shownToModel: boolean }
  | { kind: 'approval.requested'; approval: ApprovalRequest }
  | { kind: 'approval.completed'; approvalId: string; toolId: string; decision: 'approve' | 'deny'; reason?: string }
  | {
      kind: 'guardrail.result';
      guardrailId: string;
      checkId: string;
      action: string;
      passed?: boolean;
      reason?: string;
      error?: { code: string; message: string };
    }
  | { kind: 'dry-run.stopped'; stoppedAt: WouldCall & { reason: 'mutating' | 'effect'; effect?: string } };
