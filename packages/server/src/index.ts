export {
  type LoadedServerConfig,
  loadServerConfig,
  type PackConfig,
  type ServerConfig,
  type ServerConfigInput,
  serverConfigSchema,
} from './config.js';
export { type DevCredentials, ensureDevCredentials } from './dev-credentials.js';
export { createJsonLogger, type LogLevel, type ServerLogger } from './logger.js';
export { createServerMetrics, type ServerMetrics } from './metrics.js';
export { type RemotePackConfig, remotePackSchema } from './remote-pack.js';
export { type RunningServer, type StartServerOptions, startServer } from './server.js';
export { createIndexCatalog, type IndexCatalog } from './tool-registry.js';
export { type ServerTracing, startTracing, tracingRequested } from './tracing.js';
