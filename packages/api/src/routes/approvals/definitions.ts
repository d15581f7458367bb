import { createRoute, z } from '@hono/zod-openapi';
import { AnyJson, bearerSecurity, errorResponses, PageQuerySchema, pageOf } from '../../openapi/schemas.js';

const ApprovalStatusSchema = z.enum(['pending', 'approved', 'denied']).openapi('ApprovalStatus');

/** A tool call an agent run waits on someone to approve or deny. */
export const ApprovalSchema = z
  .object({
    approvalId: z.string(),
    tenantId: z.string(),
    runId: z.string(),
    agentId: z.string(),
    toolId: z.string(),
    version: z.string(),
    arguments: AnyJson,
    reason: z.enum(['not-read-only', 'listed']).openapi({
      description: '`not-read-only`: the tool may change something; `listed`: the agent names it in `hitl.tools`',
    }),
    status: ApprovalStatusSchema,
    createdAt: z.string(),
    decision: z
      .object({ decision: z.enum(['approve', 'deny']), reason: z.string().optional(), decidedAt: z.string() })
      .optional(),
  })
  .openapi('Approval');

export const ApprovalIdParams = z.object({
  approvalId: z
    .string()
    .min(1)
    .max(256)
    .openapi({ param: { name: 'approvalId', in: 'path' } }),
});

export const CompleteApprovalBodySchema = z
  .strictObject({
    decision: z.enum(['approve', 'deny']),
    reason: z.string().max(1_000).optional().openapi({ description: 'Shown to the model on a denial' }),
  })
  .openapi('CompleteApprovalRequest');

export const ApprovalListQuery = PageQuerySchema.extend({
  status: ApprovalStatusSchema.optional(),
  runId: z.string().min(1).max(256).optional(),
});

const approvalJson = { 'application/json': { schema: ApprovalSchema } };

export const listApprovalsRoute = createRoute({
  method: 'get',
  path: '/v1/approvals',
  tags: ['approvals'],
  summary: 'List approval requests of agent runs, newest first',
  security: bearerSecurity,
  request: { query: ApprovalListQuery },
  responses: {
    200: {
      description: 'A page',
      content: { 'application/json': { schema: pageOf(ApprovalSchema, 'ApprovalPage') } },
    },
    ...errorResponses(400, 401, 503),
  },
});

export const getApprovalRoute = createRoute({
  method: 'get',
  path: '/v1/approvals/{approvalId}',
  tags: ['approvals'],
  summary: 'An approval request',
  security: bearerSecurity,
  request: { params: ApprovalIdParams },
  responses: { 200: { description: 'The approval', content: approvalJson }, ...errorResponses(400, 401, 404, 503) },
});

export const completeApprovalRoute = createRoute({
  method: 'post',
  path: '/v1/approvals/{approvalId}/complete',
  tags: ['approvals'],
  summary: 'Approve or deny a waiting tool call: the run resumes on any server',
  security: bearerSecurity,
  request: {
    params: ApprovalIdParams,
    body: { required: true, content: { 'application/json': { schema: CompleteApprovalBodySchema } } },
  },
  responses: {
    200: { description: 'Decided; the run is queued again', content: approvalJson },
    ...errorResponses(400, 401, 404, 409, 503),
  },
});

/** Every approval route, for the OpenAPI document. */
export const approvalRoutes = [listApprovalsRoute, getApprovalRoute, completeApprovalRoute];
