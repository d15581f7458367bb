import type {
  CheckResult,
  GuardrailAction,
  GuardrailActionName,
  GuardrailScope,
  GuardrailSeverity,
  RunTrace,
} from '@kindgi/protocol';
import type { CheckBindings } from './context.js';
import { definedFields, describe, FieldChecker, isPlainObject } from './fields.js';
import { markPrimitive } from './marker.js';
import { readSchemaSlot } from './schema-slots.js';
import type {
  AcceptedOf,
  JsonObject,
  JsonSchemaDocument,
  MaybePromise,
  SchemaArg,
  ZodSchemaLike,
} from './schema-types.js';

export const GUARDRAIL_ACTIONS: readonly GuardrailActionName[] = [
  'halt',
  'retry',
  'escalate',
  'log-only',
  'compensate',
];
export const GUARDRAIL_SEVERITIES: readonly GuardrailSeverity[] = ['info', 'warn', 'error', 'critical'];
const SCOPE_WHEN = ['always', 'ci-only', 'runtime-only'] as const;
const SCOPE_KEYS = new Set(['when', 'agents', 'flows', 'tenants']);

/** A check over a turn's trace: pass or fail with a reason. Config arrives as sent (no defaults filled). */
export type CheckEvaluate<Config = JsonObject> = (
  config: Config,
  trace: RunTrace,
  bindings: CheckBindings,
) => MaybePromise<CheckResult>;

/** An inline check, or the id of a built-in (`'must-cite'`). */
export type CheckSpec<Config> = string | InlineCheck<Config>;

/** An inline check. (A method signature, so `config` may be annotated with the author's own type.) */
export interface InlineCheck<Config> {
  readonly id?: string;
  evaluate(config: Config, trace: RunTrace, bindings: CheckBindings): MaybePromise<CheckResult>;
}

/** The config type a guardrail's check receives: Zod's input type of `configZod`/a Zod `configSchema`. */
export type GuardrailConfigOf<Schema, SchemaZod> = SchemaZod extends ZodSchemaLike
  ? AcceptedOf<SchemaZod, never>
  : AcceptedOf<Schema, JsonObject>;

interface GuardrailFields {
  /** `<pack-id>.<name>`, kebab-case; name the rule as a positive assertion. */
  readonly id: string;
  readonly name?: string;
  /** `zero-llm` (default): a check over the trace. */
  readonly kind?: 'zero-llm' | (string & {});
  readonly severity?: GuardrailSeverity;
  readonly scope?: GuardrailScope;
  /** Defaults to the inline check's `id`, the built-in's id, or the guardrail's `id`. */
  readonly checkId?: string;
  readonly sandbox?: string;
  readonly limits?: Record<string, unknown>;
  readonly network?: Record<string, unknown>;
}

/** What `defineGuardrail` takes. */
export interface GuardrailSpec<Schema, SchemaZod> extends GuardrailFields {
  /** What happens on failure: the action's name, or `{'on-violation': name, ...settings}`. */
  readonly action: GuardrailActionName | GuardrailAction;
  readonly config?: Record<string, unknown>;
  readonly configSchema?: Schema;
  readonly configZod?: SchemaZod;
  readonly check?: CheckSpec<GuardrailConfigOf<Schema, SchemaZod>>;
  evaluate?(
    config: GuardrailConfigOf<Schema, SchemaZod>,
    trace: RunTrace,
    bindings: CheckBindings,
  ): MaybePromise<CheckResult>;
}

/** A guardrail as `defineGuardrail` returns it: plain, frozen data with normalised action and defaults. */
export interface GuardrailDefinition<Config = JsonObject> extends GuardrailFields {
  readonly kind: string;
  readonly action: GuardrailAction;
  readonly severity: GuardrailSeverity;
  readonly config?: Record<string, unknown>;
  readonly configSchema?: JsonSchemaDocument;
  readonly configZod?: ZodSchemaLike;
  readonly check: CheckSpec<Config>;
  /** Set when the check is inline (the same function as `check.evaluate`), so a runner finds it directly. */
  readonly evaluate?: CheckEvaluate<Config>;
}

/** Any guardrail definition (for lists of guardrails). */
export type AnyGuardrailDefinition = GuardrailDefinition<never>;

/**
 * Defines a guardrail (`export default defineGuardrail({...})`): an action as a string becomes
 * `{'on-violation': name}`, `kind` defaults to `zero-llm` and `severity` to `error`; an inline check is
 * also set as `evaluate`. Throws `KindgiDefinitionError` naming the field when the definition is invalid.
 */
export function defineGuardrail<
  Schema extends SchemaArg | undefined = undefined,
  SchemaZod extends ZodSchemaLike | undefined = undefined,
>(spec: GuardrailSpec<Schema, SchemaZod>): GuardrailDefinition<GuardrailConfigOf<Schema, SchemaZod>> {
  const check: FieldChecker = new FieldChecker('defineGuardrail');
  const def = check.object(spec, 'a guardrail definition');
  check.namespacedId(def.id);
  check.optionalString(def.name, 'name');
  const kind = def.kind === undefined ? 'zero-llm' : check.nonEmptyString(def.kind, 'kind');
  const action = normaliseAction(check, def.action);
  const severity = def.severity === undefined ? 'error' : check.oneOf(def.severity, GUARDRAIL_SEVERITIES, 'severity');
  checkScope(check, def.scope);
  check.optionalObject(def.config, 'config');
  const schema = readSchemaSlot(check, def, 'configSchema', 'configZod');
  check.optionalString(def.checkId, 'checkId');
  const inline = normaliseCheck(check, def.check, def.evaluate);
  check.optionalString(def.sandbox, 'sandbox');
  check.optionalObject(def.limits, 'limits');
  check.optionalObject(def.network, 'network');
  const definition = definedFields({
    ...def,
    kind,
    action,
    severity,
    configSchema: schema.json,
    configZod: schema.zod,
    check: inline.check,
    evaluate: inline.evaluate,
  });
  return markPrimitive(definition, 'guardrail') as unknown as GuardrailDefinition<GuardrailConfigOf<Schema, SchemaZod>>;
}

function normaliseAction(check: FieldChecker, action: unknown): GuardrailAction {
  const names = GUARDRAIL_ACTIONS.join(', ');
  if (action === undefined) {
    check.fail('action', `"action" is required: one of ${names}, or an object with "on-violation"`);
  }
  if (typeof action === 'string') return { 'on-violation': check.oneOf(action, GUARDRAIL_ACTIONS, 'action') };
  if (!isPlainObject(action))
    check.fail('action', `"action" must be one of ${names} or an object, got ${describe(action)}`);
  check.oneOf(action['on-violation'], GUARDRAIL_ACTIONS, 'action.on-violation');
  return { ...action } as GuardrailAction;
}

function checkScope(check: FieldChecker, scope: unknown): void {
  if (scope === undefined) return;
  if (!isPlainObject(scope))
    check.fail('scope', `"scope" must be an object {when?, agents?, flows?, tenants?}, got ${describe(scope)}`);
  for (const key of Object.keys(scope)) {
    if (!SCOPE_KEYS.has(key))
      check.fail(`scope.${key}`, `"scope" takes only when, agents, flows and tenants, not "${key}"`);
  }
  if (scope.when !== undefined) check.oneOf(scope.when, SCOPE_WHEN, 'scope.when');
  check.optionalStringList(scope.agents, 'scope.agents');
  check.optionalStringList(scope.flows, 'scope.flows');
  check.optionalStringList(scope.tenants, 'scope.tenants');
}

function normaliseCheck(
  check: FieldChecker,
  spec: unknown,
  evaluate: unknown,
): { check: string | { id?: string; evaluate: unknown }; evaluate?: unknown } {
  if (evaluate !== undefined && typeof evaluate !== 'function') {
    check.fail(
      'evaluate',
      `"evaluate" must be a function (config, trace, bindings) => result, got ${describe(evaluate)}`,
    );
  }
  if (spec === undefined) {
    if (evaluate === undefined) {
      check.fail('check', '"check" is required: an inline {evaluate} check, or the id of a built-in check');
    }
    return { check: { evaluate }, evaluate };
  }
  if (typeof spec === 'string') {
    check.nonEmptyString(spec, 'check');
    if (evaluate !== undefined) check.fail('evaluate', '"evaluate" cannot be combined with a built-in "check" id');
    return { check: spec };
  }
  if (typeof spec === 'function') return { check: { evaluate: spec }, evaluate: spec };
  if (!isPlainObject(spec) || typeof spec.evaluate !== 'function') {
    check.fail(
      'check',
      `"check" must be a built-in check id or an object with an "evaluate" function, got ${describe(spec)}`,
    );
  }
  check.optionalString(spec.id, 'check.id');
  if (evaluate !== undefined && evaluate !== spec.evaluate) {
    check.fail('evaluate', '"evaluate" and "check.evaluate" name different functions; give the check once');
  }
  return { check: Object.freeze({ ...spec }) as { evaluate: unknown }, evaluate: spec.evaluate };
}
