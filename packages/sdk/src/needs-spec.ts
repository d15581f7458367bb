import { isSecretName, isZodSchema } from '@kindgi/protocol';
import type { ToolContext } from './context.js';
import { describe, type FieldChecker, isPlainObject } from './fields.js';
import type { AcceptedOf, JsonSchemaDocument, ZodSchemaLike } from './schema-types.js';

/** How one secret is declared: the JSON Schema or Zod schema its value must match. */
export type SecretSchemaArg = JsonSchemaDocument | ZodSchemaLike;

/**
 * A tool's `needsSpec`. `secrets` maps each tenant secret the tool needs (an environment-variable-style
 * name) to its schema; the indexer writes it to the index as `needsSpec.secrets` (Zod converted to JSON
 * Schema). Other keys reach the index as they are.
 */
export interface NeedsSpecArg {
  readonly secrets?: Readonly<Record<string, SecretSchemaArg>>;
  readonly [key: string]: unknown;
}

/** What a JSON Schema's `type` promises for the common primitives; anything else is `unknown`. */
export type JsonSchemaValueOf<S> = S extends { readonly type: infer T }
  ? T extends 'string'
    ? string
    : T extends 'number' | 'integer'
      ? number
      : T extends 'boolean'
        ? boolean
        : unknown
  : unknown;

/**
 * The type of one declared secret. A Zod schema gives what it accepts (`z.input`): the runtime checks the
 * stored value against the schema's JSON Schema form and hands it over as stored, without parsing it.
 */
export type SecretValueOf<S> = S extends ZodSchemaLike ? AcceptedOf<S, never> : JsonSchemaValueOf<S>;

/** A handler's `ctx` whose `secrets` holds exactly the declared names. */
export interface SecretsToolContext<Secrets> extends Omit<ToolContext, 'secrets'> {
  /** The declared secrets, for this call's tenant. Never printed with the context. */
  readonly secrets: Secrets;
}

/**
 * What a handler receives as `ctx`: with `needsSpec.secrets` declared, `ctx.secrets` has exactly those
 * names, each typed from its schema (an undeclared name is a type error); otherwise a `ToolContext`.
 */
export type HandlerContextOf<Needs> = [Needs] extends [{ readonly secrets: infer Declared extends object }]
  ? SecretsToolContext<{ readonly [Name in keyof Declared]: SecretValueOf<Declared[Name]> }>
  : ToolContext;

/**
 * Checks `needsSpec`: an object whose `secrets`, when set, maps secret names (`SECRET_NAME_PATTERN` of
 * `@kindgi/protocol`, the rule the server stores secrets under) to JSON Schema or Zod schemas.
 */
export function checkNeedsSpec(check: FieldChecker, needsSpec: unknown): void {
  check.optionalObject(needsSpec, 'needsSpec');
  const secrets = (needsSpec as Record<string, unknown> | undefined)?.secrets;
  if (secrets === undefined) return;
  if (!isPlainObject(secrets)) {
    check.fail(
      'needsSpec.secrets',
      `"needsSpec.secrets" must be an object of secret name → JSON Schema or Zod schema, got ${describe(secrets)}`,
    );
  }
  for (const [name, schema] of Object.entries(secrets)) {
    const field = `needsSpec.secrets.${name}`;
    if (!isSecretName(name)) {
      check.fail(
        field,
        `secret name ${JSON.stringify(name)} must be 1 to 128 capital letters, digits and underscores, not starting with a digit (like "CITATOR_KEY")`,
      );
    }
    if (isZodSchema(schema)) continue;
    if (schema === undefined) check.fail(field, `"${field}" must be a JSON Schema object or a Zod schema, got nothing`);
    check.optionalJsonSchema(schema, field);
  }
}
