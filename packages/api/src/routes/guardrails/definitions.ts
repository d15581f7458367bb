import { createRoute, z } from '@hono/zod-openapi';
import {
  bearerSecurity,
  errorResponses,
  JsonObject,
  JsonSchemaValue,
  PageQuerySchema,
  pageOf,
} from '../../openapi/schemas.js';

/** A guardrail as the registry describes it. */
export const GuardrailSchema = z
  .object({
    id: z.string(),
    packId: z.string(),
    name: z.string().optional(),
    checkId: z.string(),
    kind: z.string(),
    action: JsonObject.openapi({
      description: "`{'on-violation': 'halt'|'retry'|'escalate'|'log-only'|'compensate', …}`",
    }),
    severity: z.string(),
    scope: JsonObject.optional(),
    configSchema: JsonSchemaValue.optional(),
    config: JsonObject.optional(),
  })
  .openapi('Guardrail');

export const GuardrailIdParams = z.object({
  guardrailId: z
    .string()
    .min(1)
    .openapi({ param: { name: 'guardrailId', in: 'path' } }),
});

export const EvaluateBodySchema = z
  .strictObject({
    trace: JsonObject.openapi({ description: 'The run trace: userInput, output, toolCalls, toolResults, mode…' }),
    config: JsonObject.optional().openapi({ description: "Overrides the guardrail's configured values" }),
  })
  .openapi('GuardrailEvaluateRequest');

export const EvaluationSchema = z
  .object({
    guardrailId: z.string(),
    checkId: z.string(),
    action: z.string(),
    severity: z.string(),
    result: z
      .object({ passed: z.boolean(), reason: z.string().optional() })
      .catchall(z.unknown())
      .openapi('CheckResult'),
  })
  .openapi('GuardrailEvaluation');

export const listGuardrailsRoute = createRoute({
  method: 'get',
  path: '/v1/guardrails',
  tags: ['guardrails'],
  summary: 'List the guardrails this tenant can evaluate (by id)',
  security: bearerSecurity,
  request: { query: PageQuerySchema },
  responses: {
    200: {
      description: 'A page',
      content: { 'application/json': { schema: pageOf(GuardrailSchema, 'GuardrailPage') } },
    },
    ...errorResponses(400, 401),
  },
});

export const evaluateGuardrailRoute = createRoute({
  method: 'post',
  path: '/v1/guardrails/{guardrailId}/evaluate',
  tags: ['guardrails'],
  summary: 'Run a guardrail check on a trace',
  security: bearerSecurity,
  request: {
    params: GuardrailIdParams,
    body: { required: true, content: { 'application/json': { schema: EvaluateBodySchema } } },
  },
  responses: {
    200: { description: 'The check result', content: { 'application/json': { schema: EvaluationSchema } } },
    ...errorResponses(400, 401, 404, 409, 422, 502, 503, 504),
  },
});

/** Every guardrail route, for the OpenAPI document. */
export const guardrailRoutes = [listGuardrailsRoute, evaluateGuardrailRoute];
