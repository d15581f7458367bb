import {
  DeferredAbortSignal,
  type HandlerError,
  importModuleOnce,
  type ModuleImporter,
  runCheck,
  runHandler,
} from '@kindgi/call-runner';

export type { ToolLogger } from '@kindgi/protocol';
export type { ModuleImporter };

/**
 * The handler runner the service calls: `@kindgi/call-runner`'s own functions, or stand-ins of the
 * same types (a test's). The service hands every runner the same options, the wire ctx as parsed and the
 * call's signal as `abortSignal` (made only if pack code reads it).
 */
export interface PackRunners {
  runHandler: typeof runHandler;
  runCheck: typeof runCheck;
  /** Imports a module into the cache the runners use, so the first call doesn't import it again. */
  importModule: typeof importModuleOnce;
}

/** The handler runner's functions, as the service uses them by default. */
export const defaultRunners: PackRunners = { runHandler, runCheck, importModule: importModuleOnce };

export { DeferredAbortSignal, type HandlerError };
