export {
  type LoadedServerConfig,
  loadServerConfig,
  type PackConfig,
  type ServerConfig,
  type ServerConfigInput,
  serverConfigSchema,
} from './config/config.js';
export {
  createJavaPackBuild,
  isJavaPack,
  type JavaBuildFailure,
  type JavaPackBuild,
} from './packs/java-pack.js';
export { type RemotePackConfig, remotePackSchema } from './packs/remote-pack.js';
export { createIndexCatalog, type IndexCatalog } from './packs/tool-registry.js';
export { type RunningServer, type StartServerOptions, startServer } from './server.js';
export { type DevCredentials, ensureDevCredentials } from './storage/dev-credentials.js';
export { createJsonLogger, type LogLevel, type ServerLogger } from './telemetry/logger.js';
export { createServerMetrics, type ServerMetrics } from './telemetry/metrics.js';
export { type ServerTracing, startTracing, tracingRequested } from './telemetry/tracing.js';
