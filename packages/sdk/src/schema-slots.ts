import { isZodSchema } from '@kindgi/protocol';
import { describe, type FieldChecker, isPlainObject } from './fields.js';
import type { JsonSchemaDocument, ZodSchemaLike } from './schema-types.js';

/** A schema slot split into its JSON Schema and Zod forms (at most one is set). */
export interface SchemaSlot {
  json?: JsonSchemaDocument;
  zod?: ZodSchemaLike;
}

/**
 * Reads `slot` (JSON Schema or Zod) and `zodSlot` (Zod only) of a definition: a Zod schema given as
 * `slot` moves to the Zod side. Giving a Zod schema in both is a mistake worth naming.
 */
export function readSchemaSlot(
  check: FieldChecker,
  def: Record<string, unknown>,
  slot: string,
  zodSlot: string,
): SchemaSlot {
  const value = def[slot];
  const zod = def[zodSlot];
  check.optionalZod(zod, zodSlot);
  if (isZodSchema(value)) {
    if (zod !== undefined) check.fail(slot, `give the Zod schema once: as "${slot}" or as "${zodSlot}", not both`);
    return { zod: value as unknown as ZodSchemaLike };
  }
  check.optionalJsonSchema(value, slot);
  const out: SchemaSlot = {};
  if (value !== undefined) out.json = value as JsonSchemaDocument;
  if (zod !== undefined) out.zod = zod as ZodSchemaLike;
  return out;
}

// Zod wrappers that keep the shape of what they wrap for the purposes of "is this an object".
const PASS_THROUGH = new Set(['default', 'prefault', 'catch', 'readonly', 'nonoptional']);

/** Requires a slot to describe an object: a tool is called with an object of named arguments. */
export function requireObjectSchema(check: FieldChecker, slot: SchemaSlot, field: string): void {
  function problem(what: string): never {
    check.fail(
      field,
      `"${field}" must be an object schema (a tool is called with an object of arguments), got ${what}`,
    );
  }
  if (slot.zod !== undefined) {
    const type = zodObjectType(slot.zod);
    if (type !== 'object') problem(`a Zod ${type}`);
  }
  if (slot.json !== undefined) {
    const json = slot.json;
    if (!isPlainObject(json)) problem(describe(json));
    const type = json.type;
    if (type !== 'object')
      problem(type === undefined ? 'a schema without "type": "object"' : `type ${JSON.stringify(type)}`);
  }
}

function zodObjectType(schema: ZodSchemaLike): string {
  let current: unknown = schema;
  for (let depth = 0; depth < 32; depth++) {
    const def = (current as { _zod: { def: { type: string; in?: unknown; innerType?: unknown } } })._zod.def;
    if (def.type === 'pipe' && isZodSchema(def.in)) current = def.in;
    else if (PASS_THROUGH.has(def.type) && isZodSchema(def.innerType)) current = def.innerType;
    else return def.type;
  }
  return 'deeply wrapped schema';
}
