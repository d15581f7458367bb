import type { AgentRegistry } from '@kindgi/bindings';
import type { StartRunInput } from '@kindgi/run-worker';
import { ApiError } from '../../errors/api-error.js';
import { AgentRunInputSchema } from './definitions.js';

/** What `POST /v1/runs` with `agentId` carries (the parsed body). */
export interface AgentRunBody {
  agentId?: string | undefined;
  version?: string | undefined;
  input: unknown;
  guardrails?: string[] | undefined;
  options?: { deadlineMs?: number | undefined; dryRun?: boolean | undefined } | undefined;
}

/**
 * An agent run's start: the agent must be in the tenant's registry (it queues in its pack's queue) and the
 * app must run agents (`models`); its own guardrails apply, so the body names none, nor a tool version or
 * deadline; `input` is `{message}`.
 */
export async function agentRunStart(
  agents: { registry: AgentRegistry; runs: boolean } | undefined,
  tenantId: string,
  body: AgentRunBody,
): Promise<Omit<StartRunInput, 'tenantId' | 'requestId'>> {
  const agentId = body.agentId as string;
  for (const [field, given] of [
    ['version', body.version],
    ['guardrails', body.guardrails],
    ['options.deadlineMs', body.options?.deadlineMs],
  ] as const) {
    if (given !== undefined) {
      throw new ApiError('bad-input', `${field} applies to tool runs only: an agent run uses its agent's.`, {
        param: field,
      });
    }
  }
  const input = AgentRunInputSchema.safeParse(body.input);
  if (!input.success) {
    throw new ApiError('validation-failed', 'An agent run takes input {message: string} (1 to 100,000 characters).', {
      param: 'input',
      issues: input.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })),
    });
  }
  const agent = agents === undefined ? null : await agents.registry.getAgent(tenantId, agentId);
  if (agent === null) throw new ApiError('agent-not-found', `No agent '${agentId}'.`, { agentId });
  if (agents?.runs !== true) {
    throw new ApiError('agents-unsupported', 'This deployment runs no agents (no models configured).', { agentId });
  }
  return {
    toolId: agentId,
    agent: body.options?.dryRun === true ? { agentId, dryRun: true } : { agentId },
    packId: agent.packId,
    input: input.data,
    guardrails: [],
  };
}
