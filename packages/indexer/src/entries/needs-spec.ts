import { err, ok, type Result, SECRET_NAME_PATTERN } from '@kindgi/protocol';
import { checkCompiles, type EntryContext, type EntryError, invalid } from './context.js';
import { isPlainObject, toJsonValue } from './json-value.js';
import { schemaSlot } from './schema-slot.js';

/**
 * A tool's `needsSpec` as the index records it: every key as JSON, except `secrets`, whose names are
 * checked against the server's rule (`SECRET_NAME_PATTERN`) and whose schemas, JSON Schema or Zod
 * (converted on the input side: the server checks a stored value against it), must compile.
 */
export function needsSpecEntry(
  label: string,
  needsSpec: unknown,
  ctx: EntryContext,
): Result<Record<string, unknown> | undefined, EntryError> {
  if (needsSpec === undefined) return ok(undefined);
  if (!isPlainObject(needsSpec)) return invalid(`${label}: \`needsSpec\` must be an object`);
  const entry: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(needsSpec)) {
    if (value === undefined) continue;
    if (key === 'secrets') {
      const secrets = secretsEntry(label, value, ctx);
      if (secrets.kind === 'err') return secrets;
      entry.secrets = secrets.value;
      continue;
    }
    const copied = toJsonValue(value, `${label}.needsSpec.${key}`);
    if (copied.kind === 'err') return invalid(copied.error);
    entry[key] = copied.value;
  }
  return ok(entry);
}

function secretsEntry(label: string, secrets: unknown, ctx: EntryContext): Result<Record<string, unknown>, EntryError> {
  if (!isPlainObject(secrets)) {
    return invalid(`${label}: \`needsSpec.secrets\` must be an object of secret name → JSON Schema or Zod schema`);
  }
  const out: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(secrets)) {
    if (!SECRET_NAME_PATTERN.test(name)) {
      return err({
        code: 'secret-name-invalid',
        message: `${label} declares the secret ${JSON.stringify(name)} in \`needsSpec.secrets\`: a secret name is 1 to 128 capital letters, digits and underscores, not starting with a digit (${SECRET_NAME_PATTERN.source})`,
      });
    }
    const where = `${label} secret ${name}`;
    if (schema === undefined || schema === null) return invalid(`${where} must be a JSON Schema or a Zod schema`);
    const converted = schemaSlot(where, schema, undefined, 'input');
    if (converted.kind === 'err') return converted;
    const compiles = checkCompiles(ctx, converted.value, where);
    if (compiles.kind === 'err') return compiles;
    out[name] = converted.value;
  }
  return ok(out);
}
