export {
  type CallerContext,
  createHandlerContext,
  type HandlerContext,
  type HandlerContextOptions,
} from './context.js';
export { DeferredAbortSignal } from './deferred-abort.js';
export { type HandlerError, handlerError } from './handler-error.js';
export { type JsonOutcome, type NotJson, toJsonOutput } from './json-value.js';
export { type HandlerLogger, type LogFields, noopLogger } from './logger.js';
export {
  importModuleOnce,
  ModuleCache,
  type ModuleImporter,
  type ModuleImportFailure,
  sharedModuleCache,
  toModuleSpecifier,
} from './module-loader.js';
export {
  type CheckEvaluatorFunction,
  type ResolvedCheckEvaluator,
  type ResolvedToolHandler,
  resolveCheckEvaluator,
  resolveToolHandler,
  type ToolHandlerFunction,
  type ZodParser,
} from './resolve.js';
export { type RunCheckOptions, type RunnableCheck, runCheck } from './run-check.js';
export { type RunHandlerOptions, type RunnableTool, runHandler } from './run-handler.js';
export { sharedValidators } from './validators.js';
