import type { JsonSchema } from '@kindgi/protocol';

/**
 * The part of a Zod v4 schema the SDK relies on for typing: `z.input<S>` is `S['_zod']['input']`
 * and `z.output<S>` is `S['_zod']['output']`. Structural, so a pack's own copy of Zod works.
 */
export interface ZodSchemaLike<Input = unknown, Output = unknown> {
  readonly _zod: { readonly input: Input; readonly output: Output; readonly def: { readonly type: string } };
}

/** A JSON Schema document, as authored or as read from an index. */
export type JsonSchemaDocument = Exclude<JsonSchema, boolean> | boolean;

/** A schema slot: JSON Schema, or a Zod schema (kept on the definition as `inputZod` etc.). */
export type SchemaArg = JsonSchemaDocument | ZodSchemaLike;

/** What a value of schema `S` is after parsing: Zod's output type, or a JSON object otherwise. */
export type ParsedOf<S, Fallback> = S extends ZodSchemaLike<unknown, infer Output> ? Output : Fallback;

/** What a schema `S` accepts: Zod's input type, or `Fallback` for JSON Schema. */
export type AcceptedOf<S, Fallback> = S extends ZodSchemaLike<infer Input, unknown> ? Input : Fallback;

/** A plain JSON object of arguments (what a JSON-Schema-typed tool receives). */
export type JsonObject = Record<string, unknown>;

/** A value, or a promise of it. */
export type MaybePromise<T> = T | Promise<T>;
