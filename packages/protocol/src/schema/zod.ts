import { z } from 'zod';
import { messageOf } from '../pack-error.js';
import { err, ok, type Result } from '../result.js';

/** A JSON Schema document (Draft 2020-12). */
export type JsonSchema = Record<string, unknown> | boolean;

/** Which side of a Zod schema to describe: what it accepts, or what it produces. */
export type SchemaIo = 'input' | 'output';

/** Why a Zod schema has no JSON Schema form. */
export interface SchemaConversionError {
  code: 'zod-conversion-failed';
  message: string;
  /** JSON Pointer into the schema of the first part that cannot be represented (`''` for the root). */
  path: string;
}

interface ZodLike {
  _zod: { def: { type: string } };
}

/** True for a Zod v4 schema (the `_zod` internals are what `z.toJSONSchema` reads). */
export function isZodSchema(value: unknown): value is ZodLike {
  if (typeof value !== 'object' || value === null) return false;
  const internals = (value as { _zod?: { def?: { type?: unknown } } })._zod;
  return typeof internals?.def?.type === 'string';
}

// Types whose values JSON cannot carry, or whose shape depends on code that JSON Schema cannot say.
const UNREPRESENTABLE = new Set([
  'bigint',
  'symbol',
  'undefined',
  'void',
  'date',
  'map',
  'set',
  'transform',
  'nan',
  'custom',
  'function',
  'promise',
]);

/**
 * Converts a Zod v4 schema to its JSON Schema wire form (Draft 2020-12, no `$schema`). Inputs and
 * configs convert with `io: 'input'` (a field with a default is optional), outputs with `io: 'output'`.
 * A type JSON Schema cannot say is an error naming its path, never a silently widened `{}`.
 */
export function toJSONSchemaSync(
  schema: unknown,
  options: { io: SchemaIo },
): Result<JsonSchema, SchemaConversionError> {
  const io = options.io;
  if (!isZodSchema(schema)) {
    return err({ code: 'zod-conversion-failed', message: 'Not a Zod v4 schema', path: '' });
  }
  const unrepresentable: { type: string; path: string }[] = [];
  let converted: Record<string, unknown>;
  try {
    converted = z.toJSONSchema(schema as unknown as z.ZodType, {
      io,
      target: 'draft-2020-12',
      unrepresentable: 'any',
      override: (ctx) => {
        const type = (ctx.zodSchema as unknown as ZodLike)._zod.def.type;
        if (UNREPRESENTABLE.has(type)) {
          unrepresentable.push({ type, path: ctx.path.map((part) => `/${String(part)}`).join('') });
        }
      },
    }) as Record<string, unknown>;
  } catch (cause) {
    const message = messageOf(cause);
    return err({ code: 'zod-conversion-failed', message, path: '' });
  }
  const first = unrepresentable[0];
  if (first) {
    return err({
      code: 'zod-conversion-failed',
      message: `A Zod ${first.type} cannot be represented in JSON Schema (${io} side) at ${first.path || '/'}`,
      path: first.path,
    });
  }
  delete converted.$schema;
  return ok(converted);
}
