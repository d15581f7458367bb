import {
  describeFirstIssue,
  type IndexAgent,
  issuesFromAjv,
  ok,
  type Result,
  validateIndexAgent,
} from '@kindgi/protocol';
import { versionOf } from './agent-flow.js';
import { copyOptional, definitionId, type EntryContext, type EntryError, invalid } from './context.js';

// The SDK's mark on what `defineTool` made (non-enumerable): a definition, as opposed to a bare `{id}`.
const PRIMITIVE_MARKER = Symbol.for('kindgi.primitive');

/** Fields copied as they are (as JSON); the spec's agent entry says what each may hold. */
const COPIED = ['name', 'description', 'model', 'capabilities', 'toolErrors', 'conversationPolicy'] as const;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A tool reference as the index names it. A tool definition pins its own version (its `version`, else the
 * pack's) as an exact range, so a turn calls the version the agent was written against; an id alone means
 * the newest active version; `{id, range}` is kept.
 */
function toolRef(ref: unknown, packVersion: string): unknown {
  if (!isObject(ref) || typeof ref.id !== 'string') return ref;
  if (typeof ref.range === 'string') return { id: ref.id, range: ref.range };
  const marked = (ref as { [PRIMITIVE_MARKER]?: unknown })[PRIMITIVE_MARKER] === 'tool';
  if (!marked && typeof ref.handler !== 'function' && ref.version === undefined) return ref.id;
  const version = typeof ref.version === 'string' && ref.version !== '' ? ref.version : packVersion;
  return { id: ref.id, range: version };
}

function guardrailRef(ref: unknown): unknown {
  // An agent may list guardrail definitions themselves; the index names them by id.
  return isObject(ref) && typeof ref.id === 'string' ? ref.id : ref;
}

/**
 * The index entry of an agent definition; `version` defaults to the pack's. The entry is checked against the
 * spec's agent entry (specs/pack-index.schema.json), so a turn never meets a policy it cannot read.
 */
export function buildAgentEntry(def: Record<string, unknown>, ctx: EntryContext): Result<IndexAgent, EntryError> {
  const id = definitionId(def, 'agent');
  if (id.kind === 'err') return id;
  const label = `agent "${id.value}"`;
  if (typeof def.instructions !== 'string') return invalid(`${label}: \`instructions\` must be a string`);
  const version = versionOf(def, ctx, label);
  if (version.kind === 'err') return version;
  const entry: Record<string, unknown> = {
    id: id.value,
    version: version.value,
    instructions: def.instructions,
    modulePath: ctx.modulePath,
  };
  for (const list of ['tools', 'guardrails'] as const) {
    const value = def[list];
    if (value === undefined) continue;
    if (!Array.isArray(value)) return invalid(`${label}: \`${list}\` must be a list`);
    const refs = list === 'tools' ? value.map((ref) => toolRef(ref, ctx.packVersion)) : value.map(guardrailRef);
    const copied = copyOptional({ [list]: refs }, entry, [list], label);
    if (copied.kind === 'err') return copied;
  }
  const copied = copyOptional(def, entry, COPIED, label);
  if (copied.kind === 'err') return copied;
  if (!validateIndexAgent(entry)) {
    return invalid(
      `${label} is not a valid agent entry ${describeFirstIssue(issuesFromAjv(validateIndexAgent.errors))}`,
    );
  }
  return ok(entry);
}
