import { type IndexAgent, type IndexFlow, ok, type Result } from '@kindgi/protocol';
import { copyOptional, definitionId, type EntryContext, type EntryError, invalid } from './context.js';

function refId(ref: unknown): unknown {
  // An agent may list definitions themselves; the index names them by id.
  if (typeof ref === 'object' && ref !== null && typeof (ref as { id?: unknown }).id === 'string') {
    const { id, range } = ref as { id: string; range?: unknown };
    return typeof range === 'string' ? { id, range } : id;
  }
  return ref;
}

function versionOf(def: Record<string, unknown>, ctx: EntryContext, label: string): Result<string, EntryError> {
  if (def.version === undefined) return ok(ctx.packVersion);
  if (typeof def.version !== 'string' || def.version === '')
    return invalid(`${label}: \`version\` must be a non-empty string`);
  return ok(def.version);
}

/** The index entry of an agent definition; `version` defaults to the pack's. */
export function buildAgentEntry(def: Record<string, unknown>, ctx: EntryContext): Result<IndexAgent, EntryError> {
  const id = definitionId(def, 'agent');
  if (id.kind === 'err') return id;
  const label = `agent "${id.value}"`;
  if (typeof def.instructions !== 'string') return invalid(`${label}: \`instructions\` must be a string`);
  const version = versionOf(def, ctx, label);
  if (version.kind === 'err') return version;
  const lists: Record<string, unknown> = {};
  for (const list of ['tools', 'guardrails', 'capabilities'] as const) {
    const value = def[list];
    if (value === undefined) continue;
    if (!Array.isArray(value)) return invalid(`${label}: \`${list}\` must be a list`);
    const refs = list === 'capabilities' ? value : value.map(refId);
    const wellFormed = refs.every(
      (ref) => typeof ref === 'string' || (list !== 'guardrails' && typeof ref === 'object' && ref !== null),
    );
    if (!wellFormed) return invalid(`${label}: \`${list}\` entries must be ids or definitions`);
    lists[list] = refs;
  }
  const entry: Record<string, unknown> = {
    id: id.value,
    version: version.value,
    instructions: def.instructions,
    modulePath: ctx.modulePath,
  };
  const copied = copyOptional(
    { ...def, ...lists },
    entry,
    ['name', 'description', 'model', ...Object.keys(lists)],
    label,
  );
  if (copied.kind === 'err') return copied;
  return ok(entry as IndexAgent);
}

/** The index entry of a flow definition (`kernelPayloadVersion: 1`); `version` defaults to the pack's. */
export function buildFlowEntry(def: Record<string, unknown>, ctx: EntryContext): Result<IndexFlow, EntryError> {
  const id = definitionId(def, 'flow');
  if (id.kind === 'err') return id;
  const label = `flow "${id.value}"`;
  if (!Array.isArray(def.nodes) || !Array.isArray(def.edges)) {
    return invalid(`${label}: \`nodes\` and \`edges\` must be lists`);
  }
  const version = versionOf(def, ctx, label);
  if (version.kind === 'err') return version;
  const entry: Record<string, unknown> = {
    id: id.value,
    version: version.value,
    kernelPayloadVersion: 1,
    modulePath: ctx.modulePath,
  };
  const copied = copyOptional(def, entry, ['nodes', 'edges', 'name', 'description'], label);
  if (copied.kind === 'err') return copied;
  return ok(entry as IndexFlow);
}
