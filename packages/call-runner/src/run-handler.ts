import {
  describeThrown,
  err,
  issuesFromZod,
  ok,
  type Result,
  toWireCause,
  type ValidationIssue,
  type ValidatorCache,
} from '@kindgi/protocol';
import { cloneInput } from './clone.js';
import { type CallerContext, createHandlerContext } from './context.js';
import type { DeferredAbortSignal } from './deferred-abort.js';
import { type HandlerError, handlerError } from './handler-error.js';
import { toJsonOutput } from './json-value.js';
import type { HandlerLogger } from './logger.js';
import { type ModuleCache, type ModuleImporter, sharedModuleCache } from './module-loader.js';
import { type ResolvedToolHandler, resolveToolHandler } from './resolve.js';
import { sharedValidators } from './validators.js';

/** The tool to run, as the pack index describes it. */
export interface RunnableTool {
  readonly id: string;
  /** A file path (absolute, or relative to the working directory) or a URL (`file:`, `data:`). */
  readonly modulePath: string;
  readonly inputSchema: unknown;
  readonly outputSchema: unknown;
  readonly version?: string;
}

export interface RunHandlerOptions {
  readonly tool: RunnableTool;
  /** The input as sent; never modified (defaults are filled into a copy). */
  readonly input: unknown;
  /** The wire context, optionally with `abortSignal`. */
  readonly ctx: CallerContext;
  /** Replaces `import(modulePath)`. */
  readonly importHandler?: ModuleImporter;
  /** The handler's `ctx.log`; default: discards everything. */
  readonly log?: HandlerLogger;
  /**
   * The call's abort signal, when not given as `ctx.abortSignal` (this one wins). A `DeferredAbortSignal`
   * is only made if the handler reads `ctx.abortSignal`.
   */
  readonly abortSignal?: AbortSignal | DeferredAbortSignal;
  /** Compiled validators; default: one cache shared by every call in the process. */
  readonly validators?: ValidatorCache;
  /** Imported modules; default: one loader shared by every call in the process. */
  readonly modules?: ModuleCache;
}

/**
 * Runs one tool call: validates a copy of the input (defaults filled in), imports the module once,
 * resolves the handler, parses the input with the module's Zod `inputZod` when it has one, calls the
 * handler, and validates what it returns. Never throws: every failure is a `HandlerError`.
 */
export async function runHandler(options: RunHandlerOptions): Promise<Result<unknown, HandlerError>> {
  const { tool } = options;
  const subject = { toolId: tool.id };
  const validators = options.validators ?? sharedValidators;

  const inputValidator = validators.get(tool.inputSchema, 'input');
  if (inputValidator.kind === 'err') {
    return err(
      handlerError(
        'input-validation-failed',
        `Tool "${tool.id}" input schema failed to compile: ${inputValidator.error}`,
        subject,
      ),
    );
  }
  // The output schema is compiled before the handler runs, so a broken schema never costs a side effect.
  const outputValidator = validators.get(tool.outputSchema, 'output');
  if (outputValidator.kind === 'err') {
    return err(
      handlerError(
        'output-validation-failed',
        `Tool "${tool.id}" output schema failed to compile: ${outputValidator.error}`,
        subject,
      ),
    );
  }

  let input: unknown;
  try {
    input = cloneInput(options.input);
  } catch (thrown) {
    const issues: ValidationIssue[] = [{ instancePath: '', message: `must be JSON data (${describeThrown(thrown)})` }];
    return err(
      handlerError('input-validation-failed', `Tool "${tool.id}" input failed validation`, subject, { issues }),
    );
  }
  const checked = inputValidator.value(input);
  if (checked.kind === 'err') {
    return err(
      handlerError('input-validation-failed', `Tool "${tool.id}" input failed validation`, subject, {
        issues: checked.error,
      }),
    );
  }

  const loader = options.modules ?? sharedModuleCache;
  const pending = loader.load(tool.modulePath, options.importHandler);
  const loaded = pending instanceof Promise ? await pending : pending;
  if (loaded.kind === 'err') {
    return err(
      handlerError(
        'handler-import-failed',
        `Failed to import handler module '${tool.modulePath}': ${loaded.error.description}`,
        subject,
        { cause: toWireCause(loaded.error.thrown) },
      ),
    );
  }

  const resolved = resolveToolHandler(loaded.value);
  if (!resolved) {
    return err(
      handlerError(
        'handler-shape-invalid',
        `Module '${tool.modulePath}' has no handler for tool "${tool.id}": export a function, ` +
          'or `default`, `handler` or `run` as a function or as a definition holding `handler` or `run`',
        subject,
      ),
    );
  }

  if (resolved.inputZod) {
    const parsed = await parseWithZod(resolved, input, tool.id);
    if (parsed.kind === 'err') return parsed;
    input = parsed.value;
  }

  const ctx = createHandlerContext(options.ctx, options);
  let output: unknown;
  try {
    output = Reflect.apply(resolved.handler, resolved.thisArg, [input, ctx]);
    // Only a thenable needs the await: awaiting a plain result costs a promise and a microtask turn.
    if (mayBeThenable(output)) output = await output;
  } catch (thrown) {
    return err(
      handlerError('handler-throw', `Handler for tool "${tool.id}" threw: ${describeThrown(thrown)}`, subject, {
        cause: toWireCause(thrown),
      }),
    );
  }

  const json = toJsonOutput(output);
  if (!json.ok) {
    const where = json.path === '' ? '' : ` at ${json.path}`;
    return err(
      handlerError(
        'output-validation-failed',
        `Tool "${tool.id}" handler produced output that JSON cannot carry${where}: ${json.reason}`,
        subject,
        { issues: [{ instancePath: json.path, message: `must be a JSON value, got ${json.reason}` }] },
      ),
    );
  }
  const valid = outputValidator.value(json.value);
  if (valid.kind === 'err') {
    return err(
      handlerError(
        'output-validation-failed',
        `Tool "${tool.id}" handler produced output that failed validation`,
        subject,
        {
          issues: valid.error,
        },
      ),
    );
  }
  return ok(json.value);
}

/** False only for a value `await` would hand back as it is without looking at it (a primitive, or an object without `then`). */
function mayBeThenable(value: unknown): boolean {
  if (typeof value === 'function') return true;
  return typeof value === 'object' && value !== null && 'then' in value;
}

async function parseWithZod(
  resolved: ResolvedToolHandler,
  input: unknown,
  toolId: string,
): Promise<Result<unknown, HandlerError>> {
  const subject = { toolId };
  try {
    const parsed = await resolved.inputZod!.safeParseAsync(input);
    if (parsed.success) return ok(parsed.data);
    return err(
      handlerError('input-validation-failed', `Tool "${toolId}" input failed validation`, subject, {
        issues: issuesFromZod(parsed.error.issues),
      }),
    );
  } catch (thrown) {
    // A refinement or transform in the schema threw instead of reporting an issue: that is pack code failing.
    return err(
      handlerError(
        'handler-throw',
        `The inputZod schema of tool "${toolId}" threw: ${describeThrown(thrown)}`,
        subject,
        {
          cause: toWireCause(thrown),
        },
      ),
    );
  }
}
