import { DeferredAbortSignal, type HandlerError, importModuleOnce, runCheck, runHandler } from '@kindgi/handler-runner';
import type { Result } from '@kindgi/protocol';
import type { LogFields } from './log.js';

/** Replaces `import(modulePath)` for prewarm and every call (a test seam). */
export type ModuleImporter = (modulePath: string) => unknown;

/** The `ctx.log` a tool receives. */
export interface ToolLogger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

/** What the service needs from the handler runner (the defaults are `@kindgi/handler-runner`'s). */
export interface PackRunners {
  runHandler(options: {
    tool: { id: string; modulePath: string; inputSchema: unknown; outputSchema: unknown; version?: string };
    input: unknown;
    /**
     * The wire ctx plus `abortSignal` (made when read). `defaultRunners` alone gets the wire ctx as parsed,
     * without `abortSignal`: it takes the signal from the `abortSignal` option.
     */
    ctx: Record<string, unknown> & { tenantId: string; runId: string; abortSignal: AbortSignal };
    /** The call's signal, made only when first read (`ctx.abortSignal` reads it). */
    abortSignal: DeferredAbortSignal;
    importHandler?: ModuleImporter;
    log?: ToolLogger;
  }): Promise<Result<unknown, HandlerError>>;
  runCheck(options: {
    check: { id: string; modulePath: string; configSchema?: unknown };
    config: Record<string, unknown>;
    trace: unknown;
    abortSignal: AbortSignal;
    importCheck?: ModuleImporter;
  }): Promise<Result<unknown, HandlerError>>;
  /** Imports a module into the cache the runners use, so the first call doesn't import it again. */
  importModule(
    modulePath: string,
    importer?: ModuleImporter,
  ): Promise<Result<unknown, { description: string; thrown: unknown }>>;
}

/** The handler runner's functions, as the service uses them by default. */
export const defaultRunners: PackRunners = {
  runHandler: (options) => runHandler(options),
  runCheck: (options) => runCheck(options as Parameters<typeof runCheck>[0]),
  importModule: (modulePath, importer) => importModuleOnce(modulePath, importer),
};

export { DeferredAbortSignal, type HandlerError };
