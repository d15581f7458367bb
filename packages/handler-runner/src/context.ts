import type { CallContext } from '@kindgi/protocol';
import { type HandlerLogger, noopLogger } from './logger.js';

/** The context a caller hands the runner: the wire `ctx`, optionally with the call's abort signal. */
export type CallerContext = CallContext & { abortSignal?: AbortSignal };

/**
 * What a tool handler receives as `ctx`: the wire context without `secrets`, plus `abortSignal`.
 * `secrets` and `log` are non-enumerable, so spreading, printing or serialising a context never shows
 * a secret value.
 */
export interface HandlerContext {
  readonly tenantId: string;
  readonly runId: string;
  readonly projectId?: string | null;
  readonly orgId?: string | null;
  readonly requestId?: string;
  readonly env?: Record<string, string>;
  readonly config?: Record<string, unknown>;
  readonly settings?: Record<string, Record<string, unknown>>;
  readonly idempotencyKey?: string;
  /** Fires on the call's deadline or when its caller goes away; pass it on to slow I/O. */
  readonly abortSignal: AbortSignal;
  /** The secrets the tool declares, for this call's tenant (non-enumerable). */
  readonly secrets: Readonly<Record<string, unknown>>;
  /** Log lines tied to this call (non-enumerable). */
  readonly log: HandlerLogger;
  /** Fields a newer runtime sends reach the handler untouched. */
  readonly [extra: string]: unknown;
}

export interface HandlerContextOptions {
  /** Overrides `ctx.abortSignal`. */
  abortSignal?: AbortSignal;
  /** `ctx.log`; default: a logger that discards everything. */
  log?: HandlerLogger;
}

// One signal that never fires, shared by every call made without one (creating one costs a controller).
const neverAborted: AbortSignal = new AbortController().signal;
const noSecrets: Readonly<Record<string, unknown>> = Object.freeze({});

/**
 * The runtime class of a handler context. `secrets` and `log` are accessors over private fields, so
 * they are never own enumerable properties: spreading, `JSON.stringify` and `util.inspect` leave them
 * out. (Much cheaper per call than `Object.defineProperty` on a fresh object.)
 */
class ContextObject {
  readonly #secrets: Readonly<Record<string, unknown>>;
  readonly #log: HandlerLogger;

  constructor(secrets: Readonly<Record<string, unknown>>, log: HandlerLogger) {
    this.#secrets = secrets;
    this.#log = log;
  }

  get secrets(): Readonly<Record<string, unknown>> {
    return this.#secrets;
  }

  get log(): HandlerLogger {
    return this.#log;
  }
}

/**
 * Builds the context a handler receives from the caller's. Idempotent: a context built here can be
 * passed back in (its `secrets` and `log` are read by name).
 */
export function createHandlerContext(ctx: CallerContext, options: HandlerContextOptions = {}): HandlerContext {
  const source = (typeof ctx === 'object' && ctx !== null ? ctx : {}) as CallerContext & { log?: unknown };
  const secrets = source.secrets;
  const out = new ContextObject(
    typeof secrets === 'object' && secrets !== null ? Object.freeze({ ...secrets }) : noSecrets,
    options.log ?? (isLogger(source.log) ? source.log : noopLogger),
  ) as unknown as Record<string, unknown>;
  for (const key of Object.keys(source)) {
    if (key === 'secrets' || key === 'log' || key === 'abortSignal') continue;
    // A JSON `__proto__` key is data: assigning it would replace the context's prototype instead.
    if (key === '__proto__') {
      Object.defineProperty(out, key, { value: source[key], enumerable: true, writable: true, configurable: true });
    } else {
      out[key] = source[key];
    }
  }
  out.abortSignal = options.abortSignal ?? (isAbortSignal(source.abortSignal) ? source.abortSignal : neverAborted);
  return out as unknown as HandlerContext;
}

function isAbortSignal(value: unknown): value is AbortSignal {
  return value instanceof AbortSignal;
}

function isLogger(value: unknown): value is HandlerLogger {
  if (typeof value !== 'object' || value === null) return false;
  const log = value as Record<string, unknown>;
  return (
    typeof log.debug === 'function' &&
    typeof log.info === 'function' &&
    typeof log.warn === 'function' &&
    typeof log.error === 'function'
  );
}
