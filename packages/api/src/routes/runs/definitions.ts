import { createRoute, z } from '@hono/zod-openapi';
import { AnyJson, bearerSecurity, errorResponses, JsonObject, PageQuerySchema, pageOf } from '../../openapi/schemas.js';
import { MAX_DEADLINE_MS } from '../tools/definitions.js';

const RunStatusSchema = z
  .enum(['queued', 'running', 'waiting', 'completed', 'failed', 'cancelled'])
  .openapi('RunStatus', { description: '`waiting`: an agent run at an approval gate, until the approval is decided' });

/** A recorded tool run. */
export const RunSchema = z
  .object({
    runId: z.string(),
    tenantId: z.string(),
    toolId: z.string().openapi({ description: "The tool run; an agent run's agent id" }),
    agentId: z.string().optional().openapi({ description: 'Set on agent runs' }),
    version: z.string().optional(),
    status: RunStatusSchema,
    input: AnyJson,
    guardrails: z.array(z.string()),
    output: AnyJson.optional().openapi({
      description:
        'Only on GET /v1/runs/{runId}; listings carry outputSize. An agent run: `{answer, usage, modelCalls, ' +
        'guardrailErrors?}`, or a dry run that stopped: `{dryRun: {stoppedAt, wouldCall}, usage}`',
    }),
    outputSize: z.number().int().min(0).optional().openapi({ description: "Bytes of the output's JSON" }),
    error: z
      .object({ code: z.string(), message: z.string(), details: JsonObject.optional() })
      .catchall(z.unknown())
      .optional(),
    violations: z.array(
      z
        .object({
          guardrailId: z.string(),
          checkId: z.string(),
          action: z.string(),
          severity: z.string(),
          reason: z.string().optional(),
        })
        .openapi('RunViolation'),
    ),
    createdAt: z.string(),
    updatedAt: z.string(),
    startedAt: z.string().optional(),
    finishedAt: z.string().optional(),
  })
  .openapi('Run');

export const RunIdParams = z.object({
  runId: z
    .string()
    .min(1)
    .openapi({ param: { name: 'runId', in: 'path' } }),
});

/** The longest message an agent run takes (the kernel's limit). */
export const MAX_AGENT_MESSAGE_CHARS = 100_000;

export const StartRunBodySchema = z
  .strictObject({
    toolId: z.string().min(1).optional().openapi({ description: 'A tool run: give toolId or agentId' }),
    agentId: z.string().min(1).max(256).optional().openapi({
      description: 'An agent run: one turn of the agent; `input` is `{message}`',
    }),
    version: z.string().min(1).optional(),
    input: AnyJson,
    guardrails: z.array(z.string().min(1)).max(32).optional(),
    options: z
      .strictObject({
        wait: z.boolean().optional().openapi({
          description: 'Answer 201 with the finished run (or an agent run waiting for an approval) instead of 202',
        }),
        deadlineMs: z.number().int().min(1).max(MAX_DEADLINE_MS).optional(),
        dryRun: z.boolean().optional().openapi({
          description: 'Agent runs: stop before the first tool that is not read-only or declares a side effect',
        }),
      })
      .optional(),
  })
  .refine((body) => 'input' in body, { message: 'input is required', path: ['input'] })
  .refine((body) => (body.toolId === undefined) !== (body.agentId === undefined), {
    message: 'give toolId or agentId (one of them)',
    path: ['toolId'],
  })
  .openapi('StartRunRequest');

/** An agent run's `input`. */
export const AgentRunInputSchema = z.strictObject({ message: z.string().min(1).max(MAX_AGENT_MESSAGE_CHARS) });

export const RunListQuery = PageQuerySchema.extend({
  status: RunStatusSchema.optional(),
  toolId: z.string().min(1).optional(),
});

const runJson = { 'application/json': { schema: RunSchema } };

export const startRunRoute = createRoute({
  method: 'post',
  path: '/v1/runs',
  tags: ['runs'],
  summary: 'Start a tool run (guardrails evaluate its output) or an agent run (one turn of an agent)',
  security: bearerSecurity,
  request: { body: { required: true, content: { 'application/json': { schema: StartRunBodySchema } } } },
  responses: {
    201: { description: 'Finished (options.wait)', content: runJson },
    202: { description: 'Accepted and queued', content: runJson },
    ...errorResponses(400, 401, 404, 409, 501, 503),
  },
});

export const listRunsRoute = createRoute({
  method: 'get',
  path: '/v1/runs',
  tags: ['runs'],
  summary: 'List runs, newest first',
  security: bearerSecurity,
  request: { query: RunListQuery },
  responses: {
    200: { description: 'A page', content: { 'application/json': { schema: pageOf(RunSchema, 'RunPage') } } },
    ...errorResponses(400, 401, 503),
  },
});

export const getRunRoute = createRoute({
  method: 'get',
  path: '/v1/runs/{runId}',
  tags: ['runs'],
  summary: 'A run',
  security: bearerSecurity,
  request: { params: RunIdParams },
  responses: { 200: { description: 'The run', content: runJson }, ...errorResponses(401, 404, 503) },
});

export const cancelRunRoute = createRoute({
  method: 'post',
  path: '/v1/runs/{runId}/cancel',
  tags: ['runs'],
  summary: 'Cancel a running run',
  security: bearerSecurity,
  request: { params: RunIdParams },
  responses: { 200: { description: 'Cancelled', content: runJson }, ...errorResponses(401, 404, 409, 503) },
});

/** One SSE frame: an `event` among `events`, `data` as JSON text matching `data`, and an `id` unless `withId` is false. */
function sseEvent(events: string[], data: Record<string, unknown>, withId = true) {
  return {
    type: 'object' as const,
    required: withId ? ['event', 'data', 'id'] : ['event', 'data'],
    properties: {
      event: { type: 'string' as const, enum: events },
      data: { type: 'string' as const, contentMediaType: 'application/json', contentSchema: data },
      ...(withId ? { id: { type: 'string' as const, pattern: '^.+:[0-9]+$', description: '<runId>:<sequence>' } } : {}),
    },
  };
}

const RunStreamEventSchema = {
  description: 'One Server-Sent Event of the run stream',
  oneOf: [
    sseEvent(['run.started', 'run.completed', 'run.failed', 'run.cancelled'], { $ref: '#/components/schemas/Run' }),
    sseEvent(['guardrail.violation'], { $ref: '#/components/schemas/RunViolation' }),
    sseEvent(['run.waiting', 'run.resumed'], { $ref: '#/components/schemas/Run' }),
    sseEvent(
      [
        'model.call',
        'tool.call',
        'tool.result',
        'approval.requested',
        'approval.completed',
        'guardrail.result',
        'dry-run.stopped',
      ],
      { type: 'object', description: 'An agent turn event (docs/agents.md describes each)' },
    ),
    sseEvent(
      ['error'],
      {
        type: 'object',
        required: ['code', 'message'],
        properties: { code: { type: 'string' }, message: { type: 'string' } },
      },
      false,
    ),
  ],
};

export const streamRunRoute = createRoute({
  method: 'get',
  path: '/v1/runs/{runId}/stream',
  tags: ['runs'],
  summary: "A run's events as Server-Sent Events; resume with Last-Event-Id: <runId>:<sequence>",
  security: bearerSecurity,
  request: {
    params: RunIdParams,
    headers: z.object({
      'last-event-id': z
        .string()
        .optional()
        .openapi({ param: { name: 'last-event-id', in: 'header' } }),
    }),
  },
  responses: {
    200: {
      description:
        'Server-Sent Events (UTF-8 text, one frame per event; `: keep-alive` comment frames while nothing ' +
        'happens). Each frame has `id: <runId>:<sequence>`, `event: <kind>` and one `data:` line of JSON: ' +
        '`run.started` and the terminal `run.completed` | `run.failed` | `run.cancelled` carry the Run; ' +
        '`guardrail.violation` carries the violation `{guardrailId, checkId, action, severity, reason?}`. ' +
        'Agent runs add `model.call`, `tool.call`, `tool.result`, `approval.requested`, `approval.completed`, ' +
        '`guardrail.result` and `dry-run.stopped` (the turn event without its kind), and `run.waiting` / ' +
        '`run.resumed` (the Run) around an approval gate. ' +
        'The stream ends after the terminal event. A failure after the stream began is a last frame ' +
        '`event: error` with data `{code, message}` (no id).',
      content: {
        'text/event-stream': {
          // For an event stream the schema describes one event (as schemathesis and OpenAPI 3.2's
          // itemSchema read it), its `data` JSON text described by contentSchema.
          schema: RunStreamEventSchema,
        },
      },
    },
    ...errorResponses(400, 401, 404, 429, 503),
  },
});

/** Every run route, for the OpenAPI document. */
export const runRoutes = [startRunRoute, listRunsRoute, getRunRoute, cancelRunRoute, streamRunRoute];
