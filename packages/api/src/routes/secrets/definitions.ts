import { createRoute, z } from '@hono/zod-openapi';
import { bearerSecurity, errorResponses, PageQuerySchema, pageOf } from '../../openapi/schemas.js';

/** What a secret shows of itself: never its value. */
export const SecretSchema = z
  .object({
    name: z.string().openapi({ example: 'CITATOR_KEY' }),
    env: z.string().openapi({ example: 'production' }),
    version: z.number().int(),
    createdAt: z.string(),
    updatedAt: z.string(),
    updatedBy: z.string().openapi({ description: 'The user id or tenant of the token that set this version' }),
  })
  .openapi('Secret');

export const SecretAuditEntrySchema = z
  .object({
    seq: z.number().int(),
    action: z.enum(['set', 'delete']),
    name: z.string(),
    env: z.string(),
    version: z.number().int(),
    actor: z.string(),
    at: z.string(),
  })
  .openapi('SecretAuditEntry');

const NameParams = z.object({
  // The pattern is documented, not enforced here: the store answers a bad name with `secret-name-invalid`.
  name: z
    .string()
    .min(1)
    .openapi({ param: { name: 'name', in: 'path' }, example: 'CITATOR_KEY', pattern: '^[A-Z_][A-Z0-9_]{0,127}$' }),
});

const EnvQuery = z.object({
  env: z
    .string()
    .min(1)
    .optional()
    .openapi({ param: { name: 'env', in: 'query' }, description: "Default: the deployment's env" }),
});

export const PutSecretBodySchema = z
  .strictObject({
    value: z.string().openapi({ description: 'The value (1 to 16 KiB of UTF-8); never shown again' }),
    env: z.string().min(1).optional().openapi({ description: "Default: the deployment's env" }),
  })
  .openapi('SecretPutRequest');

export const putSecretRoute = createRoute({
  method: 'put',
  path: '/v1/secrets/{name}',
  tags: ['secrets'],
  summary: "Set a secret for the token's tenant (a new version); the value is write-only",
  security: bearerSecurity,
  request: {
    params: NameParams,
    body: { required: true, content: { 'application/json': { schema: PutSecretBodySchema } } },
  },
  responses: {
    200: { description: 'A new version', content: { 'application/json': { schema: SecretSchema } } },
    201: { description: 'The first version', content: { 'application/json': { schema: SecretSchema } } },
    ...errorResponses(400, 401, 409, 413, 503),
  },
});

export const listSecretsRoute = createRoute({
  method: 'get',
  path: '/v1/secrets',
  tags: ['secrets'],
  summary: "The tenant's secrets, in (env, name) order: names and versions, never values",
  security: bearerSecurity,
  request: { query: PageQuerySchema.extend(EnvQuery.shape) },
  responses: {
    200: { description: 'A page', content: { 'application/json': { schema: pageOf(SecretSchema, 'SecretPage') } } },
    ...errorResponses(400, 401, 503),
  },
});

export const secretAuditRoute = createRoute({
  method: 'get',
  path: '/v1/audit/secrets',
  tags: ['secrets'],
  summary: "Every change to the tenant's secrets, oldest first (never a value)",
  security: bearerSecurity,
  request: { query: PageQuerySchema },
  responses: {
    200: {
      description: 'A page',
      content: { 'application/json': { schema: pageOf(SecretAuditEntrySchema, 'SecretAuditPage') } },
    },
    ...errorResponses(400, 401, 503),
  },
});

export const getSecretRoute = createRoute({
  method: 'get',
  path: '/v1/secrets/{name}',
  tags: ['secrets'],
  summary: "A secret's name, env, version and times (never its value)",
  security: bearerSecurity,
  request: { params: NameParams, query: EnvQuery },
  responses: {
    200: { description: 'The secret', content: { 'application/json': { schema: SecretSchema } } },
    ...errorResponses(400, 401, 404, 503),
  },
});

export const deleteSecretRoute = createRoute({
  method: 'delete',
  path: '/v1/secrets/{name}',
  tags: ['secrets'],
  summary: 'Delete a secret: calls of tools declaring it then fail with secret-missing',
  security: bearerSecurity,
  request: { params: NameParams, query: EnvQuery },
  responses: {
    200: { description: 'The deleted secret', content: { 'application/json': { schema: SecretSchema } } },
    ...errorResponses(400, 401, 404, 409, 503),
  },
});

/** Every secrets route, for the OpenAPI document. */
export const secretRoutes = [putSecretRoute, listSecretsRoute, secretAuditRoute, getSecretRoute, deleteSecretRoute];
