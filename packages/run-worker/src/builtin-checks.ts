import {
  type CheckResult,
  describeFirstIssue,
  err,
  ok,
  RESERVED_CHECK_IDS,
  type Result,
  type RunTrace,
  ValidatorCache,
} from '@kindgi/protocol';

/** A built-in check's id (`must-cite`, `never-call-tool`, …). */
export type BuiltInCheckId = (typeof RESERVED_CHECK_IDS)[number];

/** True when `checkId` names a built-in check: the runtime evaluates it, no pack is called. */
export function isBuiltInCheck(checkId: string): checkId is BuiltInCheckId {
  return (RESERVED_CHECK_IDS as readonly string[]).includes(checkId);
}

// Patterns come from pack authors, not users; the bound keeps a pathological one from running long.
const MAX_PATTERN = 500;
const MAX_OUTPUT_CHARS = 1_000_000;
const ids = { type: 'array', items: { type: 'string', minLength: 1 }, minItems: 1, maxItems: 100 };
const texts = { type: 'array', items: { type: 'string', minLength: 1, maxLength: 10_000 }, minItems: 1, maxItems: 100 };
const pattern = { type: 'string', minLength: 1, maxLength: MAX_PATTERN };

type Config = Record<string, unknown>;
interface BuiltIn {
  schema: Record<string, unknown>;
  evaluate(config: Config, trace: RunTrace): CheckResult;
}

function outputText(trace: RunTrace): string {
  const text = typeof trace.output === 'string' ? trace.output : JSON.stringify(trace.output ?? '');
  return text.slice(0, MAX_OUTPUT_CHARS);
}

/** The tool ids of the trace's calls, in order (`toolId`, else `toolName`). */
function calledTools(trace: RunTrace): string[] {
  return (trace.toolCalls ?? []).map((call) => {
    const c = (call ?? {}) as { toolId?: unknown; toolName?: unknown };
    return String(c.toolId ?? c.toolName ?? '');
  });
}

function verdict(passed: boolean, reason: string, attributes?: Record<string, unknown>): CheckResult {
  const result: CheckResult = passed ? { passed } : { passed, reason };
  if (attributes) result.attributes = attributes;
  return result;
}

function fold(text: string, config: Config): string {
  return config.caseSensitive === false ? text.toLowerCase() : text;
}

const BUILT_INS: Record<BuiltInCheckId, BuiltIn> = {
  'must-cite': {
    schema: { type: 'object', properties: { pattern, min: { type: 'integer', minimum: 1, default: 1 } } },
    evaluate: (config, trace) => {
      const regex = new RegExp((config.pattern as string | undefined) ?? '\\[[^\\]\\n]+\\]', 'g');
      const found = outputText(trace).match(regex)?.length ?? 0;
      const min = (config.min as number | undefined) ?? 1;
      return verdict(found >= min, `The answer cites ${found} source(s); at least ${min} needed`, { citations: found });
    },
  },
  'never-call-tool': {
    schema: { type: 'object', required: ['tools'], properties: { tools: ids } },
    evaluate: (config, trace) => {
      const banned = calledTools(trace).find((id) => (config.tools as string[]).includes(id));
      return verdict(banned === undefined, `The turn called "${banned}", which it must never call`);
    },
  },
  'max-tool-calls': {
    schema: { type: 'object', required: ['max'], properties: { max: { type: 'integer', minimum: 0 }, tool: pattern } },
    evaluate: (config, trace) => {
      const calls = calledTools(trace).filter((id) => config.tool === undefined || id === config.tool).length;
      const what = config.tool === undefined ? 'tool calls' : `calls of "${config.tool}"`;
      return verdict(calls <= (config.max as number), `The turn made ${calls} ${what}; at most ${config.max} allowed`);
    },
  },
  'output-matches': {
    schema: {
      type: 'object',
      required: ['pattern'],
      properties: { pattern, flags: { type: 'string', pattern: '^[imsu]*$' } },
    },
    evaluate: (config, trace) => {
      const regex = new RegExp(config.pattern as string, (config.flags as string | undefined) ?? '');
      return verdict(regex.test(outputText(trace)), `The answer does not match /${config.pattern}/`);
    },
  },
  'tool-order': {
    schema: {
      type: 'object',
      required: ['order'],
      properties: { order: { ...ids, minItems: 2 }, requireAll: { type: 'boolean', default: false } },
    },
    evaluate: (config, trace) => {
      const called = calledTools(trace);
      const order = config.order as string[];
      const firsts = order.map((id) => called.indexOf(id));
      const missing = order.filter((_, i) => firsts[i] === -1);
      if (config.requireAll === true && missing.length > 0) {
        return verdict(false, `The turn never called ${missing.map((id) => `"${id}"`).join(', ')}`);
      }
      const seen = firsts.filter((index) => index !== -1);
      const inOrder = seen.every((index, i) => i === 0 || index > (seen[i - 1] as number));
      return verdict(inOrder, `The turn did not call ${order.map((id) => `"${id}"`).join(' before ')}`);
    },
  },
  'required-substring': {
    schema: {
      type: 'object',
      required: ['substrings'],
      properties: { substrings: texts, caseSensitive: { type: 'boolean' } },
    },
    evaluate: (config, trace) => {
      const text = fold(outputText(trace), config);
      const absent = (config.substrings as string[]).filter((s) => !text.includes(fold(s, config)));
      return verdict(absent.length === 0, `The answer lacks ${absent.map((s) => JSON.stringify(s)).join(', ')}`);
    },
  },
  'forbidden-substring': {
    schema: {
      type: 'object',
      required: ['substrings'],
      properties: { substrings: texts, caseSensitive: { type: 'boolean' } },
    },
    evaluate: (config, trace) => {
      const text = fold(outputText(trace), config);
      const present = (config.substrings as string[]).filter((s) => text.includes(fold(s, config)));
      return verdict(present.length === 0, `The answer contains ${present.map((s) => JSON.stringify(s)).join(', ')}`);
    },
  },
};

const validators = new ValidatorCache({ maxEntries: 16 });

/**
 * Evaluates a built-in check over a trace, in process. A config its schema refuses (or a pattern that is not
 * a regular expression) is an error, not a verdict: the check could not run.
 */
export function evaluateBuiltInCheck(
  checkId: BuiltInCheckId,
  config: Config,
  trace: RunTrace,
): Result<CheckResult, string> {
  const builtIn = BUILT_INS[checkId];
  const validator = validators.get(builtIn.schema, 'input');
  if (validator.kind === 'err') return err(`Built-in check "${checkId}" has an invalid schema: ${validator.error}`);
  const copy = structuredClone(config);
  const checked = validator.value(copy);
  if (checked.kind === 'err') {
    return err(`Built-in check "${checkId}" config failed validation ${describeFirstIssue(checked.error)}`);
  }
  try {
    return ok(builtIn.evaluate((checked.value ?? copy) as Config, trace));
  } catch (thrown) {
    // Only a pattern that is not a regular expression gets here.
    return err(
      `Built-in check "${checkId}" could not run: ${thrown instanceof Error ? thrown.message : String(thrown)}`,
    );
  }
}
