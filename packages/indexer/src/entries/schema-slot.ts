import { err, isZodSchema, type JsonSchema, ok, type Result, type SchemaIo, toJSONSchemaSync } from '@kindgi/protocol';
import type { IndexerFileErrorCode } from '../errors.js';
import { toJsonValue } from './json-value.js';

/** Why a schema slot could not be written. */
export interface SlotError {
  code: Extract<IndexerFileErrorCode, 'zod-conversion-failed' | 'manifest-validation-failed'>;
  message: string;
}

/**
 * The JSON Schema of one slot (`input`, `output`, `configSchema`): an authored JSON Schema passes through
 * verbatim; a Zod schema (in the slot itself or its `…Zod` twin) is converted on the given side.
 * `undefined` when the definition has neither.
 */
export function schemaSlot(
  label: string,
  jsonSlot: unknown,
  zodSlot: unknown,
  io: SchemaIo,
): Result<JsonSchema | undefined, SlotError> {
  const zod = isZodSchema(jsonSlot) ? jsonSlot : zodSlot;
  if (jsonSlot !== undefined && !isZodSchema(jsonSlot)) {
    if (
      typeof jsonSlot !== 'boolean' &&
      (typeof jsonSlot !== 'object' || jsonSlot === null || Array.isArray(jsonSlot))
    ) {
      return err({
        code: 'manifest-validation-failed',
        message: `${label} must be a JSON Schema object or a Zod schema`,
      });
    }
    const copied = toJsonValue(jsonSlot, label);
    if (copied.kind === 'err') return err({ code: 'manifest-validation-failed', message: copied.error });
    return ok(copied.value as JsonSchema);
  }
  if (zod === undefined) return ok(undefined);
  if (!isZodSchema(zod)) {
    return err({ code: 'manifest-validation-failed', message: `${label} is not a Zod v4 schema` });
  }
  const converted = toJSONSchemaSync(zod, { io });
  if (converted.kind === 'err') {
    const at = converted.error.path === '' ? '/' : converted.error.path;
    return err({
      code: 'zod-conversion-failed',
      message: `${label} (Zod, ${io} side) has no JSON Schema form at ${at}: ${converted.error.message}`,
    });
  }
  return ok(converted.value);
}
