import type { ToolEffect } from '@kindgi/protocol';
import type { ToolContext } from './context.js';
import { definedFields, describe, FieldChecker, isPlainObject } from './fields.js';
import { markPrimitive } from './marker.js';
import { readSchemaSlot, requireObjectSchema } from './schema-slots.js';
import type {
  JsonObject,
  JsonSchemaDocument,
  MaybePromise,
  ParsedOf,
  SchemaArg,
  ZodSchemaLike,
} from './schema-types.js';

/** The fields of a tool besides its schemas and handler. */
export interface ToolFields {
  /** `<pack-id>.<name>`, kebab-case. */
  readonly id: string;
  /** What the tool does and returns: the model reads it to decide when to call the tool. */
  readonly description: string;
  /** An exact semver; default: the pack's version. */
  readonly version?: string;
  /** False for a read-only tool. */
  readonly mutating?: boolean;
  readonly effects?: readonly ToolEffect[];
  readonly needs?: unknown;
  /** Declared secrets and settings (`{secrets: {NAME: JSON Schema}}`), resolved per tenant. */
  readonly needsSpec?: Record<string, unknown>;
  readonly limits?: Record<string, unknown>;
  readonly sandbox?: string;
  readonly network?: Record<string, unknown>;
}

/** What a handler receives: Zod's output type of `inputZod` or a Zod `input`, else a JSON object. */
export type HandlerInputOf<In, InZod> = InZod extends ZodSchemaLike ? ParsedOf<InZod, never> : ParsedOf<In, JsonObject>;

/** What a handler returns: Zod's output type of `outputZod` or a Zod `output`, else anything. */
export type HandlerOutputOf<Out, OutZod> = OutZod extends ZodSchemaLike
  ? ParsedOf<OutZod, never>
  : ParsedOf<Out, unknown>;

/** What `defineTool` takes. `input`/`output` may be JSON Schema or Zod. */
export interface ToolSpec<In, Out, InZod, OutZod> extends ToolFields {
  readonly input?: In;
  readonly output?: Out;
  readonly inputZod?: InZod;
  readonly outputZod?: OutZod;
  /** Runs one call. (A method signature, so a JSON-Schema tool may annotate `input` with its own type.) */
  handler(input: HandlerInputOf<In, InZod>, ctx: ToolContext): MaybePromise<HandlerOutputOf<Out, OutZod>>;
}

/** A tool as `defineTool` returns it: plain, frozen data; a Zod schema sits in `inputZod`/`outputZod`. */
export interface ToolDefinition<Input = JsonObject, Output = unknown> extends ToolFields {
  readonly input?: JsonSchemaDocument;
  readonly output?: JsonSchemaDocument;
  readonly inputZod?: ZodSchemaLike;
  readonly outputZod?: ZodSchemaLike;
  readonly handler: (input: Input, ctx: ToolContext) => MaybePromise<Output>;
}

/** Any tool definition, whatever its input and output types (for lists of tools). */
export type AnyToolDefinition = ToolDefinition<never, unknown>;

/**
 * Defines a tool (`export default defineTool({...})`). The handler's `input` is typed from a Zod
 * `input`/`inputZod` and its `ctx` is a `ToolContext`. Throws `KindgiDefinitionError` naming the field
 * when the definition is invalid, so a broken module fails at import.
 */
export function defineTool<
  In extends SchemaArg | undefined = undefined,
  Out extends SchemaArg | undefined = undefined,
  InZod extends ZodSchemaLike | undefined = undefined,
  OutZod extends ZodSchemaLike | undefined = undefined,
>(spec: ToolSpec<In, Out, InZod, OutZod>): ToolDefinition<HandlerInputOf<In, InZod>, HandlerOutputOf<Out, OutZod>> {
  const check: FieldChecker = new FieldChecker('defineTool');
  const def = check.object(spec, 'a tool definition');
  check.namespacedId(def.id);
  check.nonEmptyString(def.description, 'description');
  check.optionalSemver(def.version);
  const input = readSchemaSlot(check, def, 'input', 'inputZod');
  requireObjectSchema(check, input, input.zod !== undefined && def.inputZod !== undefined ? 'inputZod' : 'input');
  const output = readSchemaSlot(check, def, 'output', 'outputZod');
  if (typeof def.handler !== 'function') {
    check.fail('handler', `"handler" must be a function (input, ctx) => output, got ${describe(def.handler)}`);
  }
  check.optionalBoolean(def.mutating, 'mutating');
  checkEffects(check, def.effects);
  check.optionalObject(def.needsSpec, 'needsSpec');
  check.optionalObject(def.limits, 'limits');
  check.optionalString(def.sandbox, 'sandbox');
  check.optionalObject(def.network, 'network');
  const definition = definedFields({
    ...def,
    input: input.json,
    inputZod: input.zod,
    output: output.json,
    outputZod: output.zod,
  });
  return markPrimitive(definition, 'tool') as unknown as ToolDefinition<
    HandlerInputOf<In, InZod>,
    HandlerOutputOf<Out, OutZod>
  >;
}

function checkEffects(check: FieldChecker, effects: unknown): void {
  if (effects === undefined) return;
  if (!Array.isArray(effects))
    check.fail('effects', `"effects" must be a list of {kind, resource?}, got ${describe(effects)}`);
  effects.forEach((effect, index) => {
    const field = `effects[${index}]`;
    if (!isPlainObject(effect))
      check.fail(field, `"${field}" must be an object {kind, resource?}, got ${describe(effect)}`);
    check.nonEmptyString(effect.kind, `${field}.kind`);
    check.optionalString(effect.resource, `${field}.resource`);
  });
}
