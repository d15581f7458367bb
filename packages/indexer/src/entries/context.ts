import { describeFirstIssue, err, ok, type Result, type ValidatorCache } from '@kindgi/protocol';
import { toJsonValue } from './json-value.js';
import type { SlotError } from './schema-slot.js';

/** What building one index entry needs to know. */
export interface EntryContext {
  /** The module path recorded in the index (source path, relative, forward slashes). */
  modulePath: string;
  packId: string;
  packVersion: string;
  validators: ValidatorCache;
}

/** A definition that is not a valid entry: the file error's code and message. */
export type EntryError = SlotError | { code: 'reserved-check-id' | 'secret-name-invalid'; message: string };

/** A `manifest-validation-failed` entry error. */
export function invalid(message: string): { kind: 'err'; error: EntryError } {
  return err({ code: 'manifest-validation-failed', message });
}

/** Copies the optional fields a definition has into the entry, as JSON. */
export function copyOptional(
  def: Record<string, unknown>,
  entry: Record<string, unknown>,
  fields: readonly string[],
  noun: string,
): Result<void, EntryError> {
  for (const field of fields) {
    if (def[field] === undefined) continue;
    const copied = toJsonValue(def[field], `${noun}.${field}`);
    if (copied.kind === 'err') return invalid(copied.error);
    entry[field] = copied.value;
  }
  return ok(undefined);
}

/** Checks that a schema compiles (Ajv, strict), so the pack service cannot fail on it later. */
export function checkCompiles(ctx: EntryContext, schema: unknown, label: string): Result<void, EntryError> {
  const compiled = ctx.validators.get(schema, 'output');
  return compiled.kind === 'ok' ? ok(undefined) : invalid(`${label} is not a valid JSON Schema: ${compiled.error}`);
}

/** Checks a value against a schema without filling defaults. */
export function checkAgainst(
  ctx: EntryContext,
  schema: unknown,
  value: unknown,
  label: string,
): Result<void, EntryError> {
  const compiled = ctx.validators.get(schema, 'output');
  if (compiled.kind === 'err') return invalid(`${label} schema is not a valid JSON Schema: ${compiled.error}`);
  const checked = compiled.value(value);
  return checked.kind === 'ok'
    ? ok(undefined)
    : invalid(`${label} does not match its schema ${describeFirstIssue(checked.error)}`);
}

/** The `id` of a definition, checked to be a non-empty string. */
export function definitionId(def: Record<string, unknown>, noun: string): Result<string, EntryError> {
  const id = def.id;
  if (typeof id !== 'string' || id.trim() === '') return invalid(`the ${noun}'s \`id\` must be a non-empty string`);
  return ok(id);
}
