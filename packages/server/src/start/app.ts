import { createApp, type KindgiApp } from '@kindgi/api';
import type { S3CredentialBinding } from '@kindgi/bindings';
import type { ServerConfig } from '../config/config.js';
import type { ServerLogger } from '../telemetry/logger.js';
import type { ServerMetrics } from '../telemetry/metrics.js';
import type { ServerAgents } from './agents.js';
import { tokenResolver } from './credentials.js';
import type { ServerPacks } from './packs.js';
import { readinessProbe } from './readiness.js';
import type { ServerSecrets } from './secrets.js';
import type { ServerStorage } from './storage.js';

/** What the API app of a server is wired with. */
export interface ServerAppInput {
  config: ServerConfig;
  logger: ServerLogger;
  storage: ServerStorage;
  packs: ServerPacks;
  metrics: ServerMetrics | undefined;
  s3Credentials: S3CredentialBinding;
  s3Regions: string[];
  secrets: ServerSecrets;
  /** The hosted packs' agents, and the models agent runs call when `models` is configured. */
  agents?: ServerAgents | undefined;
}

function metricsRoute(config: ServerConfig): { path: string; token?: string } {
  return config.metrics.token
    ? { path: config.metrics.path, token: config.metrics.token }
    : { path: config.metrics.path };
}

/** The REST + `/s3` app over the server's storage and packs. */
export function createServerApp(input: ServerAppInput): KindgiApp {
  const { config, logger, storage, packs, metrics } = input;
  return createApp({
    resolveToken: tokenResolver(config),
    runHandler: packs.runHandler,
    runCheck: packs.runCheck,
    toolRegistry: packs.registry,
    blobStorage: storage.blobStorage,
    s3Credentials: input.s3Credentials,
    s3: { basePath: config.s3.basePath ?? '/s3', regions: input.s3Regions },
    runStore: storage.runStore,
    ...(input.agents ? { agents: input.agents } : {}),
    idempotencyStore: storage.idempotencyStore,
    secrets: {
      store: input.secrets.store,
      env: input.secrets.env,
      declared: (call) => packs.declaredSecrets(call.tool),
      ...(input.secrets.onSend ? { onSend: input.secrets.onSend } : {}),
    },
    cursorSecret: storage.cursorSecret,
    ...(config.runs ? { runs: config.runs } : {}),
    // Servers with other packs may share the run store: each executes only runs of the packs it hosts.
    servedPacks: () => [...packs.hosts.keys()],
    ...(config.sse ? { sse: config.sse } : {}),
    ...(config.docs ? { openapi: { docs: true as const } } : {}),
    ...(config.mcp.enabled ? { mcp: config.mcp.pageSize ? { pageSize: config.mcp.pageSize } : (true as const) } : {}),
    ...(config.artifactMaxBytes ? { artifactMaxBytes: config.artifactMaxBytes } : {}),
    readiness: readinessProbe({ ...storage.readiness, hosts: packs.hosts }),
    ...(metrics ? { telemetry: metrics, metrics: metricsRoute(config) } : {}),
    logger: {
      warn: (message, fields) => logger.log('warn', 'api', message, fields),
      error: (message, fields) => logger.log('error', 'api', message, fields),
    },
  });
}
