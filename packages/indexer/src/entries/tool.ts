import { type IndexTool, type JsonSchema, ok, type Result } from '@kindgi/protocol';
import { checkCompiles, copyOptional, definitionId, type EntryContext, type EntryError, invalid } from './context.js';
import { needsSpecEntry } from './needs-spec.js';
import { schemaSlot } from './schema-slot.js';

const OPTIONAL_FIELDS = [
  'version',
  'description',
  'mutating',
  'effects',
  'needs',
  'sandbox',
  'limits',
  'network',
  'spec',
] as const;

// A tool that declares no output may return anything; one that declares no input takes any object.
const ANY_OBJECT: JsonSchema = { type: 'object' };
const ANYTHING: JsonSchema = {};

/** The index entry of a tool definition. */
export function buildToolEntry(def: Record<string, unknown>, ctx: EntryContext): Result<IndexTool, EntryError> {
  const id = definitionId(def, 'tool');
  if (id.kind === 'err') return id;
  const label = `tool "${id.value}"`;
  const runnable = typeof def.handler === 'function' || typeof def.run === 'function';
  if (!runnable && def.spec === undefined) return invalid(`${label} needs a \`handler\` function`);
  for (const field of ['version', 'description'] as const) {
    if (def[field] !== undefined && typeof def[field] !== 'string')
      return invalid(`${label}: \`${field}\` must be a string`);
  }
  if (def.mutating !== undefined && typeof def.mutating !== 'boolean') {
    return invalid(`${label}: \`mutating\` must be a boolean`);
  }
  if (def.effects !== undefined) {
    const effects = def.effects;
    const wellFormed =
      Array.isArray(effects) &&
      effects.every((e) => typeof e === 'object' && e !== null && typeof (e as { kind?: unknown }).kind === 'string');
    if (!wellFormed) return invalid(`${label}: \`effects\` must be a list of { kind, resource? }`);
  }
  const input = schemaSlot(`${label} input`, def.input, def.inputZod, 'input');
  if (input.kind === 'err') return input;
  const output = schemaSlot(`${label} output`, def.output, def.outputZod, 'output');
  if (output.kind === 'err') return output;
  const inputSchema = input.value ?? ANY_OBJECT;
  const outputSchema = output.value ?? ANYTHING;
  const inputType = typeof inputSchema === 'object' ? inputSchema.type : undefined;
  if (typeof inputSchema !== 'object' || (inputType !== undefined && inputType !== 'object')) {
    return invalid(`${label} input must be an object schema (a tool's input is a JSON object)`);
  }
  const inputCompiles = checkCompiles(ctx, inputSchema, `${label} input`);
  if (inputCompiles.kind === 'err') return inputCompiles;
  const outputCompiles = checkCompiles(ctx, outputSchema, `${label} output`);
  if (outputCompiles.kind === 'err') return outputCompiles;
  const entry: Record<string, unknown> = {
    id: id.value,
    input: inputSchema,
    output: outputSchema,
    modulePath: ctx.modulePath,
  };
  const copied = copyOptional(def, entry, OPTIONAL_FIELDS, label);
  if (copied.kind === 'err') return copied;
  const needsSpec = needsSpecEntry(label, def.needsSpec, ctx);
  if (needsSpec.kind === 'err') return needsSpec;
  if (needsSpec.value !== undefined) entry.needsSpec = needsSpec.value;
  return ok(entry as IndexTool);
}
