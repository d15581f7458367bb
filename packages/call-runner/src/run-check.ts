import {
  describeFirstIssue,
  describeThrown,
  err,
  ok,
  type Result,
  toWireCause,
  type ValidatorCache,
} from '@kindgi/protocol';
import { type HandlerError, handlerError } from './handler-error.js';
import { toJsonOutput } from './json-value.js';
import { type ModuleCache, type ModuleImporter, sharedModuleCache } from './module-loader.js';
import { resolveCheckEvaluator } from './resolve.js';
import { sharedValidators } from './validators.js';

/** The check to run, as the pack index describes it (`checkModulePath` → `modulePath`). */
export interface RunnableCheck {
  readonly id: string;
  /** A file path (absolute, or relative to the working directory) or a URL (`file:`, `data:`). */
  readonly modulePath: string;
  /** Validates the config as sent, without filling defaults. */
  readonly configSchema?: unknown;
}

export interface RunCheckOptions {
  readonly check: RunnableCheck;
  readonly config: unknown;
  readonly trace: unknown;
  /** Reaches the evaluator as `bindings.abortSignal`. */
  readonly abortSignal?: AbortSignal;
  /** Replaces `import(modulePath)`. */
  readonly importCheck?: ModuleImporter;
  /** Compiled validators; default: one cache shared by every call in the process. */
  readonly validators?: ValidatorCache;
  /** Imported modules; default: one loader shared by every call in the process. */
  readonly modules?: ModuleCache;
}

const neverAborted: AbortSignal = new AbortController().signal;

/**
 * Runs one guardrail check: validates the config as sent (no defaults), imports the module once,
 * resolves its evaluator and calls `evaluate(config, trace, {abortSignal})`. The check's result is not
 * validated, only required to be JSON data. Never throws: every failure is a `HandlerError` with `checkId`.
 */
export async function runCheck(options: RunCheckOptions): Promise<Result<unknown, HandlerError>> {
  const { check } = options;
  const subject = { checkId: check.id };

  if (check.configSchema !== undefined && check.configSchema !== null) {
    const validators = options.validators ?? sharedValidators;
    // The output side fills no defaults: a check is validated against the config exactly as it was sent.
    const validator = validators.get(check.configSchema, 'output');
    if (validator.kind === 'err') {
      return err(
        handlerError(
          'input-validation-failed',
          `Check "${check.id}" config schema failed to compile: ${validator.error}`,
          subject,
        ),
      );
    }
    const checked = validator.value(options.config);
    if (checked.kind === 'err') {
      return err(
        handlerError(
          'input-validation-failed',
          `Check "${check.id}" config failed validation ${describeFirstIssue(checked.error)}`,
          subject,
          { issues: checked.error },
        ),
      );
    }
  }

  const loader = options.modules ?? sharedModuleCache;
  const pending = loader.load(check.modulePath, options.importCheck);
  const loaded = pending instanceof Promise ? await pending : pending;
  if (loaded.kind === 'err') {
    return err(
      handlerError(
        'handler-import-failed',
        `Failed to import check module '${check.modulePath}': ${loaded.error.description}`,
        subject,
        { cause: toWireCause(loaded.error.thrown) },
      ),
    );
  }

  const resolved = resolveCheckEvaluator(loaded.value);
  if (!resolved) {
    return err(
      handlerError(
        'check-shape-invalid',
        `Module '${check.modulePath}' has no evaluate for check "${check.id}": export \`evaluate\`, ` +
          '`default` or `check` as a function, an object with `evaluate`, or a definition whose `check` has one',
        subject,
      ),
    );
  }

  const bindings = { abortSignal: options.abortSignal ?? neverAborted };
  let result: unknown;
  try {
    result = await Reflect.apply(resolved.evaluate, resolved.thisArg, [options.config, options.trace, bindings]);
  } catch (thrown) {
    return err(
      handlerError('handler-throw', `Check "${check.id}" evaluate() threw: ${describeThrown(thrown)}`, subject, {
        cause: toWireCause(thrown),
      }),
    );
  }
  // The result is not checked against any schema, but it must survive the trip to JSON: a BigInt or a
  // cycle would otherwise break the reply after the check already ran.
  const json = toJsonOutput(result);
  if (!json.ok) {
    const where = json.path === '' ? '' : ` at ${json.path}`;
    return err(
      handlerError(
        'output-validation-failed',
        `Check "${check.id}" evaluate() returned a result JSON cannot carry${where}: ${json.reason}`,
        subject,
        { issues: [{ instancePath: json.path, message: `must be a JSON value, got ${json.reason}` }] },
      ),
    );
  }
  return ok(json.value);
}
