/** A tool handler as the runner calls it. */
export type ToolHandlerFunction = (input: unknown, ctx: unknown) => unknown;

/** A check's evaluator as the runner calls it. */
export type CheckEvaluatorFunction = (
  config: unknown,
  trace: unknown,
  bindings: { abortSignal: AbortSignal },
) => unknown;

/** A resolved handler, with the object it is called on and the definition that holds it. */
export interface ResolvedToolHandler {
  readonly handler: ToolHandlerFunction;
  /** `this` for the call: the definition when the handler is one of its methods. */
  readonly thisArg: unknown;
  /** The Zod schema to parse the input with (the definition's or the module's `inputZod`), if any. */
  readonly inputZod?: ZodParser;
}

/** A resolved check evaluator and the object it is called on. */
export interface ResolvedCheckEvaluator {
  readonly evaluate: CheckEvaluatorFunction;
  readonly thisArg: unknown;
}

/** The part of a Zod schema (v3 or v4) the runner uses. */
export interface ZodParser {
  safeParseAsync(value: unknown): Promise<ZodParseOutcome>;
}

export type ZodParseOutcome =
  | { success: true; data: unknown }
  | { success: false; error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] } };

const HANDLER_EXPORTS = ['default', 'handler', 'run'] as const;
const HOLDER_KEYS = ['handler', 'run'] as const;
const EVALUATOR_EXPORTS = ['evaluate', 'default', 'check'] as const;

const toolCache = new WeakMap<object, ResolvedToolHandler | null>();
const checkCache = new WeakMap<object, ResolvedCheckEvaluator | null>();

/**
 * Finds a module's tool handler: the module itself when it is a function; else the first of `default`,
 * `handler`, `run` that is a function; else the `handler` or `run` of one of those that is an object
 * (a `defineTool` definition). `undefined` when there is none. Never throws.
 */
export function resolveToolHandler(moduleValue: unknown): ResolvedToolHandler | undefined {
  if (!isObjectLike(moduleValue)) return undefined;
  const cached = toolCache.get(moduleValue);
  if (cached !== undefined) return cached ?? undefined;
  let resolved: ResolvedToolHandler | null = null;
  try {
    resolved = findToolHandler(moduleValue);
  } catch {
    // A getter on pack code threw: the module has no usable handler.
  }
  toolCache.set(moduleValue, resolved);
  return resolved ?? undefined;
}

function findToolHandler(moduleValue: object): ResolvedToolHandler | null {
  const moduleZod = zodOf(moduleValue);
  if (typeof moduleValue === 'function') {
    return withZod({ handler: moduleValue as ToolHandlerFunction, thisArg: undefined }, moduleZod);
  }
  const exports = moduleValue as Record<string, unknown>;
  for (const key of HANDLER_EXPORTS) {
    const value = exports[key];
    if (typeof value === 'function')
      return withZod({ handler: value as ToolHandlerFunction, thisArg: exports }, moduleZod);
  }
  for (const key of HANDLER_EXPORTS) {
    const holder = exports[key];
    if (!isObjectLike(holder)) continue;
    for (const method of HOLDER_KEYS) {
      const value = (holder as Record<string, unknown>)[method];
      if (typeof value === 'function') {
        return withZod({ handler: value as ToolHandlerFunction, thisArg: holder }, zodOf(holder) ?? moduleZod);
      }
    }
  }
  return null;
}

/**
 * Finds a check's evaluator: the module itself when it is a function; else the first of `evaluate`,
 * `default`, `check` that is a function, an object with an `evaluate` function, or an object whose
 * `check` has one (a `defineGuardrail` definition). `undefined` when there is none. Never throws.
 */
export function resolveCheckEvaluator(moduleValue: unknown): ResolvedCheckEvaluator | undefined {
  if (!isObjectLike(moduleValue)) return undefined;
  const cached = checkCache.get(moduleValue);
  if (cached !== undefined) return cached ?? undefined;
  let resolved: ResolvedCheckEvaluator | null = null;
  try {
    resolved = findCheckEvaluator(moduleValue);
  } catch {
    // A getter on pack code threw: the module has no usable evaluator.
  }
  checkCache.set(moduleValue, resolved);
  return resolved ?? undefined;
}

function findCheckEvaluator(moduleValue: object): ResolvedCheckEvaluator | null {
  if (typeof moduleValue === 'function') return { evaluate: moduleValue as CheckEvaluatorFunction, thisArg: undefined };
  const exports = moduleValue as Record<string, unknown>;
  for (const key of EVALUATOR_EXPORTS) {
    const value = exports[key];
    if (typeof value === 'function') return { evaluate: value as CheckEvaluatorFunction, thisArg: exports };
    if (!isObjectLike(value)) continue;
    const own = (value as Record<string, unknown>).evaluate;
    if (typeof own === 'function') return { evaluate: own as CheckEvaluatorFunction, thisArg: value };
    const check = (value as Record<string, unknown>).check;
    if (isObjectLike(check)) {
      const nested = (check as Record<string, unknown>).evaluate;
      if (typeof nested === 'function') return { evaluate: nested as CheckEvaluatorFunction, thisArg: check };
    }
  }
  return null;
}

function withZod(resolved: ResolvedToolHandler, inputZod: ZodParser | undefined): ResolvedToolHandler {
  return inputZod ? { ...resolved, inputZod } : resolved;
}

function zodOf(holder: object): ZodParser | undefined {
  const candidate = (holder as { inputZod?: unknown }).inputZod;
  return isObjectLike(candidate) && typeof (candidate as { safeParseAsync?: unknown }).safeParseAsync === 'function'
    ? (candidate as ZodParser)
    : undefined;
}

function isObjectLike(value: unknown): value is object {
  return (typeof value === 'object' && value !== null) || typeof value === 'function';
}
