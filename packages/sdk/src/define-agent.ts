import type { AnyGuardrailDefinition } from './define-guardrail.js';
import type { AnyToolDefinition } from './define-tool.js';
import { definedFields, describe, FieldChecker, isPlainObject } from './fields.js';
import { markPrimitive } from './marker.js';

/** A tool an agent may call: a definition, its id, or its id with a version range. */
export type AgentToolRef = AnyToolDefinition | string | { readonly id: string; readonly range?: string };

/** A guardrail an agent runs on its final answer: a definition or its id. */
export type AgentGuardrailRef = AnyGuardrailDefinition | string;

/**
 * Approval gates: `true` asks before the first use in a turn of every tool that is not read-only; the object
 * form turns them off (`enabled: false`), adds read-only tools that ask too (`tools`) or exempts some (`exempt`).
 */
export type AgentApprovalGates =
  | boolean
  | { readonly enabled?: boolean; readonly tools?: readonly string[]; readonly exempt?: readonly string[] };

/** How the agent's turns converse: approval gates and limits (other fields pass through to the index). */
export interface AgentConversationPolicy {
  readonly hitl?: AgentApprovalGates;
  /** Model calls per turn, 1 to 100 (default 16). */
  readonly maxSteps?: number;
  /** Tool calls per turn, 1 to 1000 (default 64). */
  readonly maxToolCalls?: number;
  readonly [extra: string]: unknown;
}

/** What `defineAgent` takes (other fields pass through to the index). */
export interface AgentSpec {
  readonly id: string;
  readonly version?: string;
  readonly name?: string;
  readonly description?: string;
  /** The agent's system prompt. */
  readonly instructions: string;
  /** A model entry of the server's `models` (`default` when absent). */
  readonly model?: string;
  readonly capabilities?: readonly string[];
  readonly tools?: readonly AgentToolRef[];
  readonly guardrails?: readonly AgentGuardrailRef[];
  /**
   * The tool failures the model is shown and may fix, by code (`tool-error`: the handler threw;
   * `input-validation-failed`, `tool-not-found`, `deadline-exceeded`, …). Any other failure fails the turn.
   */
  readonly toolErrors?: readonly string[];
  readonly conversationPolicy?: AgentConversationPolicy;
  readonly [extra: string]: unknown;
}

const ERROR_CODE = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

/** An agent as `defineAgent` returns it: plain, frozen data. */
export type AgentDefinition = AgentSpec;

/** Defines an agent. Throws `KindgiDefinitionError` naming the field when the definition is invalid. */
export function defineAgent<const Spec extends AgentSpec>(spec: Spec): Spec {
  const check: FieldChecker = new FieldChecker('defineAgent');
  const def = check.object(spec, 'an agent definition');
  check.namespacedId(def.id);
  check.optionalSemver(def.version);
  check.optionalString(def.name, 'name');
  check.optionalString(def.description, 'description');
  check.nonEmptyString(def.instructions, 'instructions');
  if (def.model !== undefined) check.nonEmptyString(def.model, 'model');
  checkToolErrors(check, def.toolErrors);
  checkConversationPolicy(check, def.conversationPolicy);
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

function checkToolErrors(check: FieldChecker, codes: unknown): void {
  check.optionalStringList(codes, 'toolErrors');
  const list = (codes ?? []) as string[];
  for (const [index, code] of list.entries()) {
    if (!ERROR_CODE.test(code)) {
      check.fail(
        `toolErrors[${index}]`,
        `"toolErrors[${index}]" must be an error code in kebab-case, got ${describe(code)}`,
      );
    }
    if (list.indexOf(code) !== index) check.fail(`toolErrors[${index}]`, `"toolErrors" lists "${code}" twice`);
  }
}

function checkLimit(check: FieldChecker, value: unknown, field: string, max: number): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max) {
    check.fail(field, `"${field}" must be a whole number from 1 to ${max}, got ${describe(value)}`);
  }
}

function checkConversationPolicy(check: FieldChecker, policy: unknown): void {
  if (policy === undefined) return;
  const field = 'conversationPolicy';
  if (!isPlainObject(policy)) check.fail(field, `"${field}" must be an object, got ${describe(policy)}`);
  checkLimit(check, policy.maxSteps, `${field}.maxSteps`, 100);
  checkLimit(check, policy.maxToolCalls, `${field}.maxToolCalls`, 1000);
  const hitl = policy.hitl;
  if (hitl === undefined || typeof hitl === 'boolean') return;
  if (!isPlainObject(hitl))
    check.fail(`${field}.hitl`, `"${field}.hitl" must be true, false or an object, got ${describe(hitl)}`);
  for (const key of Object.keys(hitl)) {
    if (!['enabled', 'tools', 'exempt'].includes(key)) {
      check.fail(`${field}.hitl.${key}`, `"${field}.hitl" takes enabled, tools and exempt, not "${key}"`);
    }
  }
  check.optionalBoolean(hitl.enabled, `${field}.hitl.enabled`);
  for (const list of ['tools', 'exempt'] as const) {
    const ids = hitl[list];
    if (ids === undefined) continue;
    if (!Array.isArray(ids))
      check.fail(`${field}.hitl.${list}`, `"${field}.hitl.${list}" must be a list of tool ids, got ${describe(ids)}`);
    for (const [index, id] of ids.entries()) check.namespacedId(id, `${field}.hitl.${list}[${index}]`);
  }
}
