import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AgentRegistry } from '@kindgi/bindings';
import type { AppEnv } from '../../env.js';
import { ApiError } from '../../errors/api-error.js';
import type { CursorSealer } from '../../pagination/cursor-seal.js';
import { pageById } from '../../pagination/page-in-memory.js';
import { getAgentRoute, listAgentsRoute } from './definitions.js';

/** What the agent routes need. */
export interface AgentDeps {
  agents: AgentRegistry;
  cursors: CursorSealer;
}

/** Mounts `/v1/agents` and `/v1/agents/{agentId}`: what the tenant's registry holds. */
export function registerAgentRoutes(app: OpenAPIHono<AppEnv>, deps: AgentDeps): void {
  app.openapi(listAgentsRoute, async (c) => {
    const { tenantId } = c.get('principal');
    const agents = await deps.agents.listAgents(tenantId);
    return c.json(pageById(agents, c.req.valid('query'), deps.cursors, `${tenantId}|agents`), 200);
  });
  app.openapi(getAgentRoute, async (c) => {
    const { agentId } = c.req.valid('param');
    const agent = await deps.agents.getAgent(c.get('principal').tenantId, agentId);
    if (agent === null) throw new ApiError('agent-not-found', `No agent '${agentId}'.`, { agentId });
    return c.json(agent, 200);
  });
}
