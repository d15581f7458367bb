import { err, type IndexGuardrail, ok, type Result } from '@kindgi/protocol';
import { RESERVED_CHECK_IDS } from '../constants.js';
import {
  checkAgainst,
  checkCompiles,
  copyOptional,
  definitionId,
  type EntryContext,
  type EntryError,
  invalid,
} from './context.js';
import { exportedChecks } from './definitions.js';
import { toJsonValue } from './json-value.js';
import { schemaSlot } from './schema-slot.js';

const ACTIONS = ['halt', 'retry', 'escalate', 'log-only', 'compensate'];
const SEVERITIES = ['info', 'warn', 'error', 'critical'];
const WHEN = ['always', 'ci-only', 'runtime-only'];

/** A guardrail's entry and the ids of the checks its module ships (implements), for the prefix warning. */
export interface GuardrailEntry {
  entry: IndexGuardrail;
  shippedCheckIds: string[];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function normaliseAction(action: unknown, label: string): Result<Record<string, unknown>, EntryError> {
  const object = typeof action === 'string' ? { 'on-violation': action } : action;
  if (!isObject(object) || !ACTIONS.includes(object['on-violation'] as string)) {
    return invalid(`${label}: \`action\` must be one of ${ACTIONS.join(', ')} (or { "on-violation": … })`);
  }
  const copied = toJsonValue(object, `${label}.action`);
  return copied.kind === 'ok' ? ok(copied.value as Record<string, unknown>) : invalid(copied.error);
}

function checkScope(scope: unknown, label: string): Result<void, EntryError> {
  if (scope === undefined) return ok(undefined);
  if (!isObject(scope)) return invalid(`${label}: \`scope\` must be an object`);
  if (scope.when !== undefined && !WHEN.includes(scope.when as string)) {
    return invalid(`${label}: \`scope.when\` must be one of ${WHEN.join(', ')}`);
  }
  for (const list of ['agents', 'flows', 'tenants']) {
    const names = scope[list];
    if (names !== undefined && (!Array.isArray(names) || names.some((n) => typeof n !== 'string'))) {
      return invalid(`${label}: \`scope.${list}\` must be a list of strings`);
    }
  }
  return ok(undefined);
}

/**
 * The index entry of a guardrail definition. Its check is either named (`check: 'must-cite'`, a built-in
 * or another module's check) or shipped inline (`check: { id, evaluate }` or `evaluate`); a shipped check
 * may not take a built-in's id.
 */
export function buildGuardrailEntry(
  def: Record<string, unknown>,
  namespace: Record<string, unknown>,
  ctx: EntryContext,
): Result<GuardrailEntry, EntryError> {
  const id = definitionId(def, 'guardrail');
  if (id.kind === 'err') return id;
  const label = `guardrail "${id.value}"`;
  const check = def.check;
  const inlineCheck = isObject(check) ? check : undefined;
  if (check !== undefined && typeof check !== 'string' && !inlineCheck) {
    return invalid(`${label}: \`check\` must be a check id or { id?, evaluate }`);
  }
  if (inlineCheck && typeof inlineCheck.evaluate !== 'function') {
    return invalid(`${label}: \`check.evaluate\` must be a function`);
  }
  if (check === undefined && typeof def.evaluate !== 'function') {
    return invalid(`${label} needs a \`check\` (a check id or { id, evaluate }) or an \`evaluate\` function`);
  }
  for (const field of ['checkId', 'name'] as const) {
    if (def[field] !== undefined && (typeof def[field] !== 'string' || def[field] === '')) {
      return invalid(`${label}: \`${field}\` must be a non-empty string`);
    }
  }
  if (inlineCheck?.id !== undefined && typeof inlineCheck.id !== 'string') {
    return invalid(`${label}: \`check.id\` must be a string`);
  }
  const checkId =
    (def.checkId as string | undefined) ??
    (inlineCheck?.id as string | undefined) ??
    (typeof check === 'string' ? check : undefined) ??
    id.value;
  const shipsCheck = inlineCheck !== undefined || typeof def.evaluate === 'function';
  const shipped = [
    ...(shipsCheck ? [{ id: checkId, where: label }] : []),
    ...exportedChecks(namespace).map((c) => ({ id: c.id, where: `export "${c.exportName}"` })),
  ];
  const reserved = shipped.find((c) => (RESERVED_CHECK_IDS as readonly string[]).includes(c.id));
  if (reserved) {
    return err({
      code: 'reserved-check-id',
      message: `${reserved.where} ships its own check under the built-in check id "${reserved.id}", which the runtime would replace with the built-in; name it "${ctx.packId}.checks.<name>", or use the built-in with \`check: '${reserved.id}'\``,
    });
  }
  const kind = def.kind ?? 'zero-llm';
  if (typeof kind !== 'string' || kind === '') return invalid(`${label}: \`kind\` must be a non-empty string`);
  const severity = def.severity ?? 'error';
  if (!SEVERITIES.includes(severity as string)) {
    return invalid(`${label}: \`severity\` must be one of ${SEVERITIES.join(', ')}`);
  }
  const action = normaliseAction(def.action, label);
  if (action.kind === 'err') return action;
  const scope = checkScope(def.scope, label);
  if (scope.kind === 'err') return scope;
  const configSchema = schemaSlot(`${label} configSchema`, def.configSchema, def.configZod, 'input');
  if (configSchema.kind === 'err') return configSchema;
  const entry: Record<string, unknown> = {
    id: id.value,
    kind,
    action: action.value,
    severity,
    checkModulePath: ctx.modulePath,
    checkId,
  };
  if (configSchema.value !== undefined) {
    const compiles = checkCompiles(ctx, configSchema.value, `${label} configSchema`);
    if (compiles.kind === 'err') return compiles;
    entry.configSchema = configSchema.value;
  }
  if (def.config !== undefined) {
    if (!isObject(def.config)) return invalid(`${label}: \`config\` must be an object`);
    const config = toJsonValue(def.config, `${label}.config`);
    if (config.kind === 'err') return invalid(config.error);
    if (configSchema.value !== undefined) {
      const matches = checkAgainst(ctx, configSchema.value, config.value, `${label} config`);
      if (matches.kind === 'err') return matches;
    }
    entry.config = config.value;
  }
  const copied = copyOptional(def, entry, ['name', 'scope', 'description'], label);
  if (copied.kind === 'err') return copied;
  return ok({ entry: entry as IndexGuardrail, shippedCheckIds: [...new Set(shipped.map((c) => c.id))] });
}
