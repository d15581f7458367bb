import { type IndexFlow, ok, type Result } from '@kindgi/protocol';
import { copyOptional, definitionId, type EntryContext, type EntryError, invalid } from './context.js';

/** A definition's `version`, else the pack's. */
export function versionOf(def: Record<string, unknown>, ctx: EntryContext, label: string): Result<string, EntryError> {
  if (def.version === undefined) return ok(ctx.packVersion);
  if (typeof def.version !== 'string' || def.version === '')
    return invalid(`${label}: \`version\` must be a non-empty string`);
  return ok(def.version);
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
