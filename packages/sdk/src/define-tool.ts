import type { ToolEffect } from '@kindgi/protocol';
import type { ToolContext } from './context.js';
import { definedFields, describe, FieldChecker, isPlainObject } from './fields.js';
import { markPrimitive } from './marker.js';
import { checkNeedsSpec, type HandlerContextOf, type NeedsSpecArg } from './needs-spec.js';
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
  /**
   * What the tool needs from the tenant. `secrets` maps each secret's name (`CITATOR_KEY`) to the JSON
   * Schema or Zod schema its value must match; the indexer writes Zod ones as JSON Schema.
   */
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

/**
 * What `defineTool` takes. `input`/`output` may be JSON Schema or Zod, and so may each secret in
 * `needsSpec.secrets`: the handler's `ctx.secrets` is typed from those.
 */
export interface ToolSpec<In, Out, InZod, OutZod, Needs = undefined> extends Omit<ToolFields, 'needsSpec'> {
  /** `{secrets: {NAME: schema}}`: the tenant secrets the tool needs, each resolved and checked on every call. */
  readonly needsSpec?: Needs;
  readonly input?: In;
  readonly output?: Out;
  readonly inputZod?: InZod;
  readonly outputZod?: OutZod;
  /** Runs one call. (A method signature, so a JSON-Schema tool may annotate `input` with its own type.) */
  handler(input: HandlerInputOf<In, InZod>, ctx: HandlerContextOf<Needs>): MaybePromise<HandlerOutputOf<Out, OutZod>>;
}

/**
 * A tool as `defineTool` returns it: plain, frozen data; a Zod schema sits in `inputZod`/`outputZod` (or,
 * for a secret, in `needsSpec.secrets` as given). `Context` is the handler's `ctx` (typed secrets).
 */
export interface ToolDefinition<Input = JsonObject, Output = unknown, Context = ToolContext> extends ToolFields {
  readonly input?: JsonSchemaDocument;
  readonly output?: JsonSchemaDocument;
  readonly inputZod?: ZodSchemaLike;
  readonly outputZod?: ZodSchemaLike;
  readonly handler: (input: Input, ctx: Context) => MaybePromise<Output>;
}

/** Any tool definition, whatever its input, output and secret types (for lists of tools). */
export type AnyToolDefinition = ToolDefinition<never, unknown, never>;

/**
 * Defines a tool (`export default defineTool({...})`). The handler's `input` is typed from a Zod
 * `input`/`inputZod` and its `ctx` is a `ToolContext` whose `secrets` has exactly the names
 * `needsSpec.secrets` declares. Throws `KindgiDefinitionError` naming the field when the definition is
 * invalid, so a broken module fails at import.
 *
 * @example
 * export default defineTool({
 *   id: 'acme.verify-citation',
 *   description: "Signs a citation with the tenant's citator key.",
 *   needsSpec: { secrets: { CITATOR_KEY: z.string().min(20) } }, // or { type: 'string', minLength: 20 }
 *   input: z.object({ citation: z.string() }),
 *   handler: async (input, ctx) => sign(ctx.secrets.CITATOR_KEY, input.citation), // a string
 * });
 */
export function defineTool<
  In extends SchemaArg | undefined = undefined,
  Out extends SchemaArg | undefined = undefined,
  InZod extends ZodSchemaLike | undefined = undefined,
  OutZod extends ZodSchemaLike | undefined = undefined,
  // `const` keeps a JSON Schema's `type: 'string'` literal, so the secret's type can follow from it.
  const Needs extends NeedsSpecArg | undefined = undefined,
>(
  spec: ToolSpec<In, Out, InZod, OutZod, Needs>,
): ToolDefinition<HandlerInputOf<In, InZod>, HandlerOutputOf<Out, OutZod>, HandlerContextOf<Needs>> {
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
  checkNeedsSpec(check, def.needsSpec);
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
    HandlerOutputOf<Out, OutZod>,
    HandlerContextOf<Needs>
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
