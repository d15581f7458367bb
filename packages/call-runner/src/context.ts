import { inspect } from 'node:util';
import type { CallContext, ToolContext } from '@kindgi/protocol';
import { DeferredAbortSignal } from './deferred-abort.js';
import { type HandlerLogger, noopLogger } from './logger.js';

/** The context a caller hands the runner: the wire `ctx`, optionally with the call's abort signal. */
export type CallerContext = CallContext & { abortSignal?: AbortSignal };

/**
 * What a tool handler receives as `ctx` (`ToolContext` from `@kindgi/protocol`), where fields a newer
 * runtime sends reach the handler untouched.
 */
export interface HandlerContext extends ToolContext {
  readonly [extra: string]: unknown;
}

export interface HandlerContextOptions {
  /** Overrides `ctx.abortSignal`. A `DeferredAbortSignal` is only made when the handler reads it. */
  abortSignal?: AbortSignal | DeferredAbortSignal;
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
  #deferred: DeferredAbortSignal | undefined;

  /**
   * `abortSignal` as an own enumerable accessor that makes the signal on first use and then becomes the
   * plain data property it would have been (so reads, writes, spreads, JSON and `Object.keys` see the same).
   */
  static readonly deferredSignal: PropertyDescriptor = {
    get(this: ContextObject): AbortSignal {
      const signal = (this.#deferred as DeferredAbortSignal).signal;
      settle(this, signal);
      return signal;
    },
    set(this: ContextObject, value: unknown): void {
      settle(this, value);
    },
    enumerable: true,
    configurable: true,
  };

  constructor(secrets: Readonly<Record<string, unknown>>, log: HandlerLogger) {
    this.#secrets = secrets;
    this.#log = log;
  }

  static defer(ctx: ContextObject, deferred: DeferredAbortSignal): void {
    ctx.#deferred = deferred;
    Object.defineProperty(ctx, 'abortSignal', ContextObject.deferredSignal);
  }

  /** Printing shows the signal, as it did before the signal was deferred. */
  [inspect.custom](): this {
    const own = Object.getOwnPropertyDescriptor(this, 'abortSignal');
    if (this.#deferred !== undefined && own?.get === ContextObject.deferredSignal.get) {
      settle(this, this.#deferred.signal);
    }
    return this;
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
  const signal = options.abortSignal ?? (isAbortSignal(source.abortSignal) ? source.abortSignal : neverAborted);
  if (signal instanceof DeferredAbortSignal) ContextObject.defer(out as unknown as ContextObject, signal);
  else out.abortSignal = signal;
  return out as unknown as HandlerContext;
}

function settle(ctx: object, value: unknown): void {
  Object.defineProperty(ctx, 'abortSignal', { value, writable: true, enumerable: true, configurable: true });
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
