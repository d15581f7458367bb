import { createRoute, z } from '@hono/zod-openapi';
import {
  AnyJson,
  bearerSecurity,
  errorResponses,
  JsonSchemaValue,
  PageQuerySchema,
  pageOf,
} from '../../openapi/schemas.js';

/** A tool as the registry describes it. */
export const ToolSchema = z
  .object({
    id: z.string(),
    packId: z.string(),
    versions: z.array(z.string()).openapi({ description: 'Newest first' }),
    description: z.string().optional(),
    inputSchema: JsonSchemaValue,
    outputSchema: JsonSchemaValue,
    mutating: z.boolean().optional(),
    effects: z.array(z.unknown()).optional(),
    secrets: z
      .record(z.string(), JsonSchemaValue)
      .optional()
      .openapi({ description: "The secrets a call needs set for the caller's tenant (PUT /v1/secrets/{name})" }),
  })
  .openapi('Tool');

export const ToolIdParams = z.object({
  toolId: z
    .string()
    .min(1)
    .openapi({ param: { name: 'toolId', in: 'path' } }),
});

/** The longest deadline a caller may ask for (15 min). */
export const MAX_DEADLINE_MS = 15 * 60 * 1000;

export const InvokeBodySchema = z
  .strictObject({
    input: AnyJson,
    version: z.string().min(1).optional(),
    deadlineMs: z.number().int().min(1).max(MAX_DEADLINE_MS).optional(),
  })
  .refine((body) => 'input' in body, { message: 'input is required', path: ['input'] })
  .openapi('ToolInvokeRequest');

export const listToolsRoute = createRoute({
  method: 'get',
  path: '/v1/tools',
  tags: ['tools'],
  summary: 'List the tools this tenant can call (by id)',
  security: bearerSecurity,
  request: { query: PageQuerySchema },
  responses: {
    200: { description: 'A page', content: { 'application/json': { schema: pageOf(ToolSchema, 'ToolPage') } } },
    ...errorResponses(400, 401),
  },
});

export const getToolRoute = createRoute({
  method: 'get',
  path: '/v1/tools/{toolId}',
  tags: ['tools'],
  summary: "A tool's schemas and versions",
  security: bearerSecurity,
  request: { params: ToolIdParams },
  responses: {
    200: { description: 'The tool', content: { 'application/json': { schema: ToolSchema } } },
    ...errorResponses(401, 404),
  },
});

export const invokeToolRoute = createRoute({
  method: 'post',
  path: '/v1/tools/{toolId}/invoke',
  tags: ['tools'],
  summary: 'Call a tool and wait for its output (a client disconnect cancels the call)',
  security: bearerSecurity,
  request: {
    params: ToolIdParams,
    body: { required: true, content: { 'application/json': { schema: InvokeBodySchema } } },
  },
  responses: {
    200: {
      description: 'The output',
      content: { 'application/json': { schema: z.object({ output: AnyJson }).openapi('ToolInvokeResult') } },
    },
    ...errorResponses(400, 401, 404, 409, 422, 502, 503, 504),
  },
});

/** Every tool route, for the OpenAPI document. */
export const toolRoutes = [listToolsRoute, getToolRoute, invokeToolRoute];
