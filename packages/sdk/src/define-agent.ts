import type { AnyGuardrailDefinition } from './define-guardrail.js';
import type { AnyToolDefinition } from './define-tool.js';
import { definedFields, describe, FieldChecker, isPlainObject } from './fields.js';
import { markPrimitive } from './marker.js';

/** A tool an agent may call: a definition, its id, or its id with a version range. */
export type AgentToolRef = AnyToolDefinition | string | { readonly id: string; readonly range?: string };

/** A guardrail an agent runs on its final answer: a definition or its id. */
export type AgentGuardrailRef = AnyGuardrailDefinition | string;

/** What `defineAgent` takes (other fields, like a model choice, pass through). */
export interface AgentSpec {
  readonly id: string;
  readonly version?: string;
  readonly name?: string;
  /** The agent's system prompt. */
  readonly instructions: string;
  readonly capabilities?: readonly string[];
  readonly tools?: readonly AgentToolRef[];
  readonly guardrails?: readonly AgentGuardrailRef[];
  readonly [extra: string]: unknown;
}

/** An agent as `defineAgent` returns it: plain, frozen data. */
export type AgentDefinition = AgentSpec;

/** Defines an agent. Throws `KindgiDefinitionError` naming the field when the definition is invalid. */
export function defineAgent<const Spec extends AgentSpec>(spec: Spec): Spec {
  const check: FieldChecker = new FieldChecker('defineAgent');
  const def = check.object(spec, 'an agent definition');
  check.namespacedId(def.id);
  check.optionalSemver(def.version);
  check.optionalString(def.name, 'name');
  check.nonEmptyString(def.instructions, 'instructions');
  check.optionalStringList(def.capabilities, 'capabilities');
  const tools = refList(check, def.tools, 'tools', (item, field) => {
    if (typeof item === 'string') return check.namespacedId(item, field);
    if (!isPlainObject(item))
      check.fail(field, `"${field}" must be a tool, a tool id or {id, range}, got ${describe(item)}`);
    check.namespacedId(item.id, `${field}.id`);
    check.optionalString(item.range, `${field}.range`);
  });
  const guardrails = refList(check, def.guardrails, 'guardrails', (item, field) => {
    if (typeof item === 'string') {
      check.namespacedId(item, field);
      return;
    }
    if (!isPlainObject(item)) check.fail(field, `"${field}" must be a guardrail or its id, got ${describe(item)}`);
    check.namespacedId(item.id, `${field}.id`);
  });
  return markPrimitive(definedFields({ ...def, tools, guardrails }), 'agent') as Spec;
}

function refList(
  check: FieldChecker,
  list: unknown,
  field: string,
  each: (item: unknown, field: string) => void,
): readonly unknown[] | undefined {
  if (list === undefined) return undefined;
  if (!Array.isArray(list)) check.fail(field, `"${field}" must be a list, got ${describe(list)}`);
  for (const [index, item] of list.entries()) each(item, `${field}[${index}]`);
  return Object.freeze([...list]);
}
