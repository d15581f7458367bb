/**
 * Why a turn failed, one stable code each (docs/agents.md says when). A surface maps them once, as it maps
 * pack errors.
 */
export const AGENT_TURN_ERROR_CODES = [
  /** No agent of that id in the tenant's registry. */
  'agent-not-found',
  /** The agent lists a guardrail id no registered guardrail has: refused before the model is called. */
  'agent-guardrails-missing',
  /** A tool the agent lists has no active version (matching its range, when it gives one). */
  'agent-tool-unresolved',
  /** The agent names a model entry the server does not configure. */
  'model-not-configured',
  /** The model could not be called: unreachable, rate-limited past its retries, refused, or out of time. */
  'model-call-failed',
  /** More model calls (`maxSteps`) or tool calls (`maxToolCalls`) than the agent's policy allows. */
  'agent-step-limit',
  /** A tool call failed with a code the agent's `toolErrors` does not list. */
  'tool-call-failed',
  /** A `halt` guardrail failed on the final answer, which is not stored. */
  'guardrail-violation',
  /** A `halt` guardrail's check could not be evaluated (it threw, or its pack could not run it). */
  'guardrail-evaluation-failed',
  /** The input is too large or not what a turn takes; or a resume names no pending approval. */
  'turn-input-invalid',
  /** The turn's signal fired. */
  'turn-cancelled',
  /** A binding threw instead of answering (a bug in it): the turn stops, its caller stays up. */
  'turn-failed',
] as const;

/** One of `AGENT_TURN_ERROR_CODES`. */
export type AgentTurnErrorCode = (typeof AGENT_TURN_ERROR_CODES)[number];

/** A failed turn: its code, a message for people, details for programs. */
export interface AgentTurnError {
  code: AgentTurnErrorCode;
  message: string;
  details?: Record<string, unknown>;
}

/** An `AgentTurnError`. */
export function turnError(
  code: AgentTurnErrorCode,
  message: string,
  details?: Record<string, unknown>,
): { kind: 'err'; error: AgentTurnError } {
  return { kind: 'err', error: details === undefined ? { code, message } : { code, message, details } };
}
