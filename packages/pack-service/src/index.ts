export type { LegacyLogger } from './call.js';
export { timeoutFrom } from './call.js';
export { type CatalogCheck, type CatalogTool, createCatalog, type PackCatalog } from './catalog.js';
export {
  createPackServiceClient,
  type PackCallOptions,
  type PackCheckCall,
  type PackInvokeCall,
  type PackServiceClient,
  type PackServiceClientOptions,
} from './client/client.js';
export {
  DEFAULT_MAX_CONCURRENCY,
  DEFAULT_PACK_INDEX_PATH,
  DEFAULT_PACK_SERVICE_PORT,
  type EnvCheckMode,
  type EnvFilterMode,
  type PackServiceConfig,
  readPackServiceConfig,
} from './config.js';
export { JSON_CONTENT_TYPE } from './http-reply.js';
export { readBundleMap, readPackIndexFile } from './index-file.js';
export {
  type BatchedLineWriter,
  createPackLog,
  isLogLevel,
  LOG_LEVELS,
  type LogFields,
  type LogFormat,
  type LogLevel,
  type PackLog,
  type PackLogOptions,
  stderrBatchedLineWriter,
  stderrLineWriter,
} from './log.js';
export {
  isPlatformEnvName,
  missingPackEnv,
  PACK_ENV_FILTER_VAR,
  PLATFORM_ENV_NAMES,
  PLATFORM_ENV_PREFIXES,
  type ResolvedPackEnv,
  resolvePackEnv,
  undeclaredPackEnv,
} from './pack-env.js';
export { main } from './process-main.js';
export {
  type RelayCall,
  type RelayError,
  type RelayErrorCode,
  type RelayResponse,
  type RelayTarget,
  relay,
} from './relay/relay.js';
export { defaultRunners, type ModuleImporter, type PackRunners, type ToolLogger } from './runners.js';
export { createPackService, type PackService, type PackServiceOptions } from './service.js';
export {
  PACK_SERVICE_DRAIN_MS,
  type StartedPackService,
  type StartPackServiceConfig,
  startPackService,
} from './start.js';
export { createLineReader, type LineReader } from './supervisor/line-reader.js';
export { classifyServiceLine, LEGACY_EVENT_KINDS, type ServiceRecord } from './supervisor/service-event.js';
export { createPackServiceSupervisor, type PackServiceSupervisor, SupervisorError } from './supervisor/supervisor.js';
export { createSessionToken, isValidSessionToken, SESSION_TOKEN_PATTERN } from './supervisor/token.js';
export type {
  PackServiceSupervisorOptions,
  RestartBackoff,
  SupervisorCommand,
  SupervisorEvent,
  SupervisorFront,
  SupervisorStartError,
  SupervisorStarted,
  UnavailableReason,
} from './supervisor/types.js';
export { type CallTrace, callTrace } from './trace.js';
