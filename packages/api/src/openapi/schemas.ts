import { z } from '@hono/zod-openapi';

/** The error envelope every /v1 failure answers with. */
export const ErrorEnvelopeSchema = z
  .object({
    error: z.object({
      code: z.string().openapi({ example: 'validation-failed' }),
      message: z.string(),
      details: z.record(z.string(), z.unknown()).optional(),
      requestId: z.string().openapi({ example: 'req-6f1c9a4e-0b7d-4c52-9a43-1d2e3f405a6b' }),
    }),
  })
  .openapi('ErrorEnvelope');

/** Response entries for the given error statuses, all with the envelope. */
export function errorResponses(...statuses: number[]) {
  const out: Record<
    number,
    { description: string; content: { 'application/json': { schema: typeof ErrorEnvelopeSchema } } }
  > = {};
  for (const status of statuses) {
    out[status] = { description: 'Error envelope', content: { 'application/json': { schema: ErrorEnvelopeSchema } } };
  }
  return out;
}

/** `?limit` (1..100, default 25) and the opaque `?cursor`. */
export const PageQuerySchema = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .default(25)
    .openapi({ param: { name: 'limit', in: 'query' } }),
  cursor: z
    .string()
    .min(1)
    .optional()
    .openapi({ param: { name: 'cursor', in: 'query' } }),
});

/** `{data, hasMore, nextCursor?}` around an item schema. */
export function pageOf<T extends z.ZodTypeAny>(item: T, name: string) {
  return z.object({ data: z.array(item), hasMore: z.boolean(), nextCursor: z.string().optional() }).openapi(name);
}

/**
 * Any JSON value (schemas, inputs, outputs), spelled as the six JSON types so the document marks it required
 * where it is (a bare `unknown` would read as optional). Shallow on purpose: nothing here walks nested values.
 * Typed `unknown`, as the bindings' JSON values are, so handlers return them as they are.
 */
export const AnyJson: z.ZodType<unknown> = z
  .union([z.string(), z.number(), z.boolean(), z.null(), z.array(z.unknown()), z.record(z.string(), z.unknown())])
  .openapi({ description: 'Any JSON value' });

export const JsonObject = z.record(z.string(), z.unknown());

/** The security requirement every authenticated route declares. */
export const bearerSecurity = [{ bearerAuth: [] }];

/** A JSON Schema (an object, or `true`/`false`). */
export const JsonSchemaValue = z.union([z.boolean(), JsonObject]).openapi({ description: 'A JSON Schema' });
