// The public surface (tests/exports.test.ts snapshots it: a change here is a decision, not a side effect).
export {
  createPackServiceClient,
  type PackCallOptions,
  type PackCheckCall,
  type PackInvokeCall,
  type PackServiceClient,
  type PackServiceClientOptions,
  type ReplyBudget,
} from './client/client.js';
export { createPackLog, type LogFormat, type LogLevel, type PackLog, type PackLogOptions } from './log/log.js';
export {
  DEFAULT_MAX_CONCURRENCY,
  DEFAULT_PACK_INDEX_PATH,
  DEFAULT_PACK_SERVICE_PORT,
  type EnvCheckMode,
  type EnvFilterMode,
  type PackServiceConfig,
  readPackServiceConfig,
} from './process/config.js';
export { readPackIndexFile } from './process/index-file.js';
export {
  isPlatformEnvName,
  missingPackEnv,
  PACK_ENV_FILTER_VAR,
  PLATFORM_ENV_NAMES,
  PLATFORM_ENV_PREFIXES,
  type ResolvedPackEnv,
  resolvePackEnv,
  undeclaredPackEnv,
} from './process/pack-env.js';
export { main } from './process/process-main.js';
export {
  PACK_SERVICE_DRAIN_MS,
  type StartedPackService,
  type StartPackServiceConfig,
  startPackService,
} from './process/start.js';
export { PACK_UNCAUGHT_EXIT_CODE } from './process/uncaught.js';
export { createPackMetrics, type PackMetrics, type RejectReason } from './service/metrics.js';
export type { ModuleImporter, PackRunners } from './service/runners.js';
export { createPackService, type PackService, type PackServiceOptions } from './service/service.js';
export type { ServiceRecord } from './supervisor/service-event.js';
export { createPackServiceSupervisor, type PackServiceSupervisor, SupervisorError } from './supervisor/supervisor.js';
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
export type { MetricsRouteOptions } from './transport/metrics-route.js';
export {
  type RelayCall,
  type RelayError,
  type RelayErrorCode,
  type RelayResponse,
  type RelayTarget,
  relay,
} from './transport/relay.js';
