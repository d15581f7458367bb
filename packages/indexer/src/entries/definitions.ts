import { describeThrown, err, isResult, ok, type Result } from '@kindgi/protocol';
import type { PrimitiveFolder } from '../constants.js';

const PRIMITIVE_MARKER = Symbol.for('kindgi.primitive');
const MARKER_KINDS: Record<string, PrimitiveFolder> = {
  tool: 'tools',
  guardrail: 'guardrails',
  agent: 'agents',
  flow: 'flows',
};

/** Singular names for messages (`tools` → `tool`). */
export const KIND_NOUN: Record<PrimitiveFolder, string> = {
  tools: 'tool',
  guardrails: 'guardrail',
  agents: 'agent',
  flows: 'flow',
};

/** A message for an error value of any shape. */
export function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  if (typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string') {
    return (error as { message: string }).message;
  }
  return describeThrown(error);
}

/** Unwraps a `Result`-wrapped default export: `ok` gives its value, `err` its message. */
export function unwrapDefinition(value: unknown): Result<unknown, string> {
  if (!isResult(value)) return ok(value);
  return value.kind === 'ok' ? ok(value.value) : err(errorText(value.error));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The kinds a definition's shape fits (an SDK marker decides alone). */
export function detectKinds(value: unknown): PrimitiveFolder[] {
  if (!isObject(value)) return [];
  const marker = (value as Record<symbol, unknown>)[PRIMITIVE_MARKER];
  if (typeof marker === 'string' && MARKER_KINDS[marker]) return [MARKER_KINDS[marker]];
  const kinds: PrimitiveFolder[] = [];
  const hasId = typeof value.id === 'string';
  if (hasId && (typeof value.handler === 'function' || typeof value.run === 'function' || value.spec !== undefined)) {
    kinds.push('tools');
  }
  if (hasId && value.action !== undefined && (value.check !== undefined || typeof value.evaluate === 'function')) {
    kinds.push('guardrails');
  }
  if (typeof value.instructions === 'string') kinds.push('agents');
  if (Array.isArray(value.nodes) && Array.isArray(value.edges)) kinds.push('flows');
  return kinds;
}

/** `a tool`, `an agent`. */
export function withArticle(noun: string): string {
  return /^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`;
}

/** What a non-definition value is, for messages (`a string`, `a guardrail`, `an object that is no primitive`). */
export function describeExport(value: unknown, kinds: readonly PrimitiveFolder[]): string {
  if (kinds.length === 1 && kinds[0]) return withArticle(KIND_NOUN[kinds[0]]);
  if (kinds.length > 1) return `something shaped like ${kinds.map((k) => withArticle(KIND_NOUN[k])).join(' and ')}`;
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object that has the shape of no primitive';
  return withArticle(typeof value);
}

/** Other exports of a module that are checks (`{ id, evaluate }`): a guardrail module may ship several. */
export function exportedChecks(namespace: Record<string, unknown>): { id: string; exportName: string }[] {
  const checks: { id: string; exportName: string }[] = [];
  for (const [exportName, value] of Object.entries(namespace)) {
    if (exportName === 'default' || !isObject(value)) continue;
    if (typeof value.id === 'string' && typeof value.evaluate === 'function') checks.push({ id: value.id, exportName });
  }
  return checks;
}
