import type { AgentDescriptor, GuardrailDescriptor, ModelMessage } from '@kindgi/bindings';
import { ok, type Result } from '@kindgi/protocol';
import semver from 'semver';
import { type AgentTurnError, turnError } from './errors.js';
import {
  DEFAULT_MAX_STEPS,
  DEFAULT_MAX_TOOL_CALLS,
  MAX_CONVERSATION_CHARS,
  MAX_CONVERSATION_MESSAGES,
  MAX_MESSAGE_CHARS,
} from './limits.js';
import type { AgentKernelBindings, AgentTurnInput, ResolvedTool, TurnGates, TurnState } from './types.js';

function messageChars(message: ModelMessage): number {
  const calls = message.role === 'assistant' ? (message.toolCalls ?? []) : [];
  return (message.content ?? '').length + calls.reduce((n, call) => n + call.arguments.length, 0);
}

/** The input's size and shape, before anything is looked up. */
export function checkTurnInput(input: AgentTurnInput): Result<void, AgentTurnError> {
  const message = input.input?.message;
  if (typeof message !== 'string' || message === '' || message.length > MAX_MESSAGE_CHARS) {
    return turnError('turn-input-invalid', `input.message must be a string of 1 to ${MAX_MESSAGE_CHARS} characters`);
  }
  const conversation = input.conversation ?? [];
  if (!Array.isArray(conversation) || conversation.length > MAX_CONVERSATION_MESSAGES) {
    return turnError(
      'turn-input-invalid',
      `conversation must be a list of at most ${MAX_CONVERSATION_MESSAGES} messages`,
    );
  }
  const chars = conversation.reduce((n, m) => n + messageChars(m), 0);
  if (chars > MAX_CONVERSATION_CHARS) {
    return turnError('turn-input-invalid', `conversation holds ${chars} characters; at most ${MAX_CONVERSATION_CHARS}`);
  }
  return ok(undefined);
}

async function resolveGuardrails(
  bindings: AgentKernelBindings,
  tenantId: string,
  agent: AgentDescriptor,
): Promise<Result<GuardrailDescriptor[], AgentTurnError>> {
  const found = await Promise.all(agent.guardrails.map((id) => bindings.tools.getGuardrail(tenantId, id)));
  const missing = agent.guardrails.filter((_, index) => found[index] === null);
  if (missing.length > 0) {
    return turnError(
      'agent-guardrails-missing',
      `Agent "${agent.id}" references guardrails not in the registry: ${missing.join(', ')}`,
      { agentId: agent.id, guardrails: missing },
    );
  }
  return ok(found as GuardrailDescriptor[]);
}

/** Each tool the agent lists at one version: pinned or ranged → the highest active match; an id → the newest. */
async function resolveTools(
  bindings: AgentKernelBindings,
  tenantId: string,
  agent: AgentDescriptor,
): Promise<Result<ResolvedTool[], AgentTurnError>> {
  const tools: ResolvedTool[] = [];
  for (const ref of agent.tools) {
    const { id, range } = typeof ref === 'string' ? { id: ref, range: undefined } : ref;
    const versions = await bindings.agents.listToolVersions(tenantId, id);
    const validRange = range === undefined ? undefined : semver.validRange(range);
    if (validRange === null) {
      return turnError(
        'agent-tool-unresolved',
        `Agent "${agent.id}" gives tool "${id}" the range "${range}", which is not a semver range`,
        { toolId: id, range },
      );
    }
    const picked = versions.find((v) => validRange === undefined || semver.satisfies(v.version, validRange));
    if (!picked) {
      const wanted = range === undefined ? '' : ` matching "${range}"`;
      const active = versions.length === 0 ? 'none' : versions.map((v) => v.version).join(', ');
      return turnError(
        'agent-tool-unresolved',
        `Agent "${agent.id}" calls tool "${id}", which has no active version${wanted} (active: ${active})`,
        { toolId: id, ...(range !== undefined ? { range } : {}) },
      );
    }
    if (!tools.some((tool) => tool.id === picked.id)) tools.push(picked);
  }
  return ok(tools);
}

function gatesOf(agent: AgentDescriptor): TurnGates {
  const hitl = agent.conversationPolicy?.hitl;
  if (hitl === undefined || typeof hitl === 'boolean') return { enabled: hitl === true, tools: [], exempt: [] };
  return { enabled: hitl.enabled ?? true, tools: hitl.tools ?? [], exempt: hitl.exempt ?? [] };
}

/**
 * The turn's starting state: the agent from the tenant's registry, its guardrails (all must exist, checked
 * before any model call), its tools at the versions this turn uses, its model entry.
 */
export async function resolveTurn(
  bindings: AgentKernelBindings,
  input: AgentTurnInput,
): Promise<Result<TurnState, AgentTurnError>> {
  const agent = await bindings.agents.getAgent(input.tenantId, input.agentId);
  if (!agent) return turnError('agent-not-found', `No agent "${input.agentId}" in this tenant's registry`);
  const guardrails = await resolveGuardrails(bindings, input.tenantId, agent);
  if (guardrails.kind === 'err') return guardrails;
  const tools = await resolveTools(bindings, input.tenantId, agent);
  if (tools.kind === 'err') return tools;
  const model = agent.model ?? 'default';
  if (!bindings.models.get(model)) {
    return turnError(
      'model-not-configured',
      `Agent "${agent.id}" runs on model "${model}", which the server does not configure`,
      { model },
    );
  }
  const messages: ModelMessage[] = [
    { role: 'system', content: agent.instructions },
    ...(input.conversation ?? []).filter((m) => m.role !== 'system'),
    { role: 'user', content: input.input.message },
  ];
  const state: TurnState = {
    v: 1,
    tenantId: input.tenantId,
    runId: input.runId,
    agentId: agent.id,
    agentVersion: agent.version,
    mode: input.mode ?? 'runtime',
    dryRun: input.dryRun === true,
    model,
    tools: tools.value,
    guardrails: guardrails.value,
    toolErrors: agent.toolErrors,
    maxSteps: agent.conversationPolicy?.maxSteps ?? DEFAULT_MAX_STEPS,
    maxToolCalls: agent.conversationPolicy?.maxToolCalls ?? DEFAULT_MAX_TOOL_CALLS,
    gates: gatesOf(agent),
    userInput: input.input.message,
    messages,
    toolCalls: [],
    toolResults: [],
    modelCalls: [],
    approved: [],
    denied: [],
  };
  if (input.flowId !== undefined) state.flowId = input.flowId;
  if (input.toolDeadlineMs !== undefined) state.toolDeadlineMs = input.toolDeadlineMs;
  return ok(state);
}
