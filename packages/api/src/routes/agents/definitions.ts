import { createRoute, z } from '@hono/zod-openapi';
import { bearerSecurity, errorResponses, JsonObject, PageQuerySchema, pageOf } from '../../openapi/schemas.js';

/** An agent as its pack's index describes it. */
export const AgentSchema = z
  .object({
    id: z.string(),
    version: z.string(),
    packId: z.string(),
    name: z.string().optional(),
    description: z.string().optional(),
    instructions: z.string(),
    model: z.string().optional().openapi({ description: 'A `models` entry of the server; `default` when absent' }),
    capabilities: z.array(z.string()).optional(),
    tools: z.array(z.union([z.string(), JsonObject])).openapi({
      description: 'Tool ids, or `{id, version}` pins and `{id, range}` semver ranges',
    }),
    guardrails: z.array(z.string()),
    toolErrors: z.array(z.string()).openapi({ description: 'Tool failure codes the model is shown and may fix' }),
    conversationPolicy: JsonObject.optional().openapi({ description: '`hitl` (approval gates), `maxSteps`, …' }),
  })
  .openapi('Agent');

export const AgentIdParams = z.object({
  agentId: z
    .string()
    .min(1)
    .max(256)
    .openapi({ param: { name: 'agentId', in: 'path' } }),
});

export const listAgentsRoute = createRoute({
  method: 'get',
  path: '/v1/agents',
  tags: ['agents'],
  summary: 'List the agents this tenant can run (by id)',
  security: bearerSecurity,
  request: { query: PageQuerySchema },
  responses: {
    200: { description: 'A page', content: { 'application/json': { schema: pageOf(AgentSchema, 'AgentPage') } } },
    ...errorResponses(400, 401),
  },
});

export const getAgentRoute = createRoute({
  method: 'get',
  path: '/v1/agents/{agentId}',
  tags: ['agents'],
  summary: 'An agent',
  security: bearerSecurity,
  request: { params: AgentIdParams },
  responses: {
    200: { description: 'The agent', content: { 'application/json': { schema: AgentSchema } } },
    ...errorResponses(400, 401, 404),
  },
});

/** Every agent route, for the OpenAPI document. */
export const agentRoutes = [listAgentsRoute, getAgentRoute];
