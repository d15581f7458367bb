import { createHash, timingSafeEqual } from 'node:crypto';
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '@hono/node-server';
import { createApp, createS3App, type ReadinessCheckResult, type ReadinessProbe, withS3Telemetry } from '@kindgi/api';
import type {
  BlobStorageBinding,
  Principal,
  RunCheckBinding,
  RunHandlerBinding,
  S3Credential,
  ToolRegistry,
} from '@kindgi/bindings';
import { type KindgiDatabase, openKindgiDatabase } from '@kindgi/blob-fs';
import { err, messageOf, ok, packError, type Result } from '@kindgi/protocol';
import { blobDatabase, openServerBlobStorage } from './blob-backend.js';
import type { LoadedServerConfig, ServerConfig } from './config.js';
import { ensureDevCredentials, withDevCredentials } from './dev-credentials.js';
import { type DrainableHttp, drainableHttp } from './drain.js';
import type { ServerLogger } from './logger.js';
import { createServerMetrics } from './metrics.js';
import { type PackHost, startPackHost } from './pack-host.js';
import { startRemotePackHost } from './remote-pack.js';
import { openStateStores } from './state-stores.js';
import { createIndexCatalog, type IndexCatalog } from './tool-registry.js';

/** A running deployment. */
export interface RunningServer {
  /** The API's base URL (`/v1`, `/s3`, `/docs` below it). */
  readonly url: string;
  /** The S3 surface at `/` on its own port, when `s3.port` is set. */
  readonly s3Url?: string;
  readonly config: ServerConfig;
  /** The pack ids served, in config order. */
  readonly packs: readonly string[];
  /** Stops accepting requests, lets in-flight ones finish (up to `drainMs`), stops the pack services. */
  close(): Promise<void>;
}

export interface StartServerOptions {
  logger: ServerLogger;
  /** The pack service command (defaults to this install's pack service, loading TypeScript through tsx). */
  packCommand?: readonly string[];
}

// `serve` is typed for HTTP/2 too; without `createServer` options it is always a node:http server.
type HttpServer = Server;

function tokenKey(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

/** Looks tokens up by their sha256, so the comparison's timing says nothing about the token. */
function tokenResolver(config: ServerConfig): (token: string) => Promise<Principal | null> {
  const entries = config.tokens.map((entry) => ({ key: tokenKey(entry.token), entry }));
  return async (token) => {
    const key = tokenKey(token);
    const found = entries.find((candidate) => timingSafeEqual(candidate.key, key));
    if (!found) return null;
    const principal: Principal = { tenantId: found.entry.tenantId };
    if (found.entry.userId) principal.userId = found.entry.userId;
    return principal;
  };
}

function s3CredentialResolver(config: ServerConfig) {
  const byKey = new Map<string, S3Credential>();
  for (const entry of config.s3Credentials) {
    const credential: S3Credential = { secretKey: entry.secretKey, tenantId: entry.tenantId, bucket: entry.bucket };
    if (entry.expiresAt) credential.expiresAt = new Date(entry.expiresAt);
    byKey.set(entry.accessKeyId, credential);
  }
  return { resolve: async (accessKeyId: string) => byKey.get(accessKeyId) ?? null };
}

function metricsRoute(config: ServerConfig): { path: string; token?: string } {
  return config.metrics.token
    ? { path: config.metrics.path, token: config.metrics.token }
    : { path: config.metrics.path };
}

function defaultPackCommand(): string[] {
  const main = fileURLToPath(import.meta.resolve('@kindgi/pack-service/main'));
  // Packs are served from their sources: tsx's loader lets the pack service import TypeScript with real
  // ESM semantics (a CommonJS-style transpile would wrap a module's default export once more).
  const loader = import.meta.resolve('tsx/esm');
  return [process.execPath, '--import', loader, main];
}

/**
 * `/readyz`: the databases answer a query (the embedded one, and PostgreSQL when the runs and idempotency
 * state live there), blob storage answers a lookup (and, for the embedded folder, the folder is writable),
 * and every pack is serving (a local child, or a remote service that answers).
 */
function readinessProbe(
  database: KindgiDatabase,
  sharedState: { query(sql: string): Promise<unknown> } | undefined,
  blobStorage: BlobStorageBinding,
  objectsDir: string | undefined,
  hosts: ReadonlyMap<string, PackHost>,
): ReadinessProbe {
  return async () => {
    const checks: Record<string, ReadinessCheckResult> = {};
    try {
      database.prepare('SELECT 1').get();
      if (sharedState !== undefined) await sharedState.query('SELECT 1');
      if (objectsDir !== undefined) await access(objectsDir, constants.W_OK);
      // A lookup of a blob that cannot exist: the binding's own round trip to wherever metadata lives.
      const probe = await blobStorage.head('kindgi-readyz', 'kindgi-readyz');
      if (probe.kind === 'err') throw new Error(probe.error.code);
      checks.storage = { ok: true };
    } catch {
      // The cause (a path, an errno) is for the logs the storage itself writes, not for an unauthenticated probe.
      checks.storage = { ok: false, message: 'the data directory or its database cannot be used' };
    }
    for (const [packId, host] of hosts) {
      checks[`pack:${packId}`] = host.serving
        ? { ok: true }
        : { ok: false, message: 'the pack service is not serving' };
    }
    return checks;
  };
}

function listen(server: HttpServer): Promise<string> {
  // Node answers 417 by itself to any Expect but 100-continue (an empty one too) unless this is handled:
  // serve such requests normally, as S3 does.
  server.on('checkExpectation', (request, response) => server.emit('request', request, response));
  return new Promise((resolve, reject) => {
    const onError = (cause: Error) => reject(cause);
    server.once('error', onError);
    const ready = () => {
      server.off('error', onError);
      const address = server.address() as AddressInfo;
      const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      resolve(`http://${host}:${address.port}`);
    };
    if (server.listening) ready();
    else server.once('listening', ready);
  });
}

/**
 * Starts a deployment: durable storage in `dataDir`, a supervised pack service per pack, the API on
 * `port` (with `/s3`), and the S3 surface at `/` on `s3.port` when set. Every failure is reported; a
 * partial start is undone.
 */
export async function startServer(
  loaded: LoadedServerConfig,
  options: StartServerOptions,
): Promise<Result<RunningServer, string[]>> {
  const { logger } = options;
  let config = loaded.config;
  if (loaded.development) {
    const dev = ensureDevCredentials(config.dataDir);
    config = withDevCredentials(config, dev.credentials);
    if (dev.created) {
      process.stdout.write(
        `\nDevelopment credentials (also in ${dev.path}):\n` +
          `  API token:      ${dev.credentials.token}\n` +
          `  S3 access key:  ${dev.credentials.s3.accessKeyId}\n` +
          `  S3 secret key:  ${dev.credentials.s3.secretKey}\n` +
          `  S3 bucket:      ${dev.credentials.s3.bucket}\n\n`,
      );
    }
  }

  const embedded = openKindgiDatabase(config.dataDir);
  const state = await openStateStores(config.database, embedded, logger);
  if (state.kind === 'err') {
    embedded.close();
    return err(state.error);
  }
  // Closing the database also closes the shared state (the PostgreSQL pool, when there is one).
  const database = Object.assign(embedded, {
    close: ((close) => () => {
      state.value.close().catch(() => undefined);
      return close();
    })(embedded.close.bind(embedded)),
  });
  const storage = await openServerBlobStorage(config.blobs, {
    dataDir: config.dataDir,
    database,
    logger,
    ...(config.s3.multipartExpiryMs !== undefined ? { multipartExpiryMs: config.s3.multipartExpiryMs } : {}),
    ...blobDatabase(config),
    ...(state.value.pool ? { pool: state.value.pool } : {}),
  });
  if (storage.kind === 'err') {
    database.close();
    return err(storage.error);
  }
  const blobStorage = storage.value;

  const metrics = config.metrics.enabled ? createServerMetrics() : undefined;
  const hosts = new Map<string, PackHost>();
  const closeHosts = async () => {
    await Promise.all([...hosts.values()].map((host) => host.close().catch(() => undefined)));
  };
  const command = options.packCommand ?? defaultPackCommand();
  let catalog: IndexCatalog = createIndexCatalog([]);
  const refreshCatalog = () => {
    catalog = createIndexCatalog([...hosts.values()].map((host) => host.index));
  };
  const problems: string[] = [];
  for (const [position, pack] of config.packs.entries()) {
    const workDir = join(config.dataDir, 'packs', String(position));
    const started =
      'url' in pack
        ? await startRemotePackHost({
            pack,
            workDir,
            logger,
            onReindexed: refreshCatalog,
            ...(metrics ? { metrics } : {}),
          })
        : await startPackHost({
            pack,
            workDir,
            logger,
            command,
            onReindexed: refreshCatalog,
            ...(metrics ? { onSupervisorEvent: metrics.packEvent } : {}),
          });
    if (started.kind === 'err') {
      problems.push(started.error);
      continue;
    }
    const packId = started.value.index.packId;
    if (hosts.has(packId)) {
      problems.push(`${'dir' in pack ? pack.dir : pack.url}: pack ${packId} is configured twice`);
      await started.value.close();
      continue;
    }
    hosts.set(packId, started.value);
  }
  if (problems.length > 0) {
    await closeHosts();
    await blobStorage.close();
    database.close();
    return err(problems);
  }
  refreshCatalog();

  const registry: ToolRegistry = {
    listTools: (tenantId) => catalog.registry.listTools(tenantId),
    getTool: (tenantId, toolId) => catalog.registry.getTool(tenantId, toolId),
    listGuardrails: (tenantId) => catalog.registry.listGuardrails(tenantId),
    getGuardrail: (tenantId, id) => catalog.registry.getGuardrail(tenantId, id),
  };
  const runHandler: RunHandlerBinding = async (call) => {
    const host = hosts.get(catalog.packForTool(call.tool.id) ?? '');
    if (!host)
      return ok(
        packError('tool-not-in-pack', `No deployed pack has a tool "${call.tool.id}"`, { toolId: call.tool.id }),
      );
    return host.client.invoke(call);
  };
  const runCheck: RunCheckBinding = async (call) => {
    const host = hosts.get(catalog.packForCheck(call.check.id) ?? '');
    if (!host)
      return ok(
        packError('check-not-in-pack', `No deployed pack has a check "${call.check.id}"`, { checkId: call.check.id }),
      );
    return host.client.check(call);
  };

  const { runStore, idempotencyStore } = state.value;

  const s3Credentials = s3CredentialResolver(config);
  // us-east-1 stays accepted (and is the region errors name); the config adds to it.
  const s3Regions = ['us-east-1', ...(config.s3.regions ?? [])];
  const app = createApp({
    resolveToken: tokenResolver(config),
    runHandler,
    runCheck,
    toolRegistry: registry,
    blobStorage,
    s3Credentials,
    s3: { basePath: config.s3.basePath ?? '/s3', regions: s3Regions },
    runStore,
    idempotencyStore,
    ...(config.runs ? { runs: config.runs } : {}),
    ...(config.docs ? { openapi: { docs: true as const } } : {}),
    ...(config.artifactMaxBytes ? { artifactMaxBytes: config.artifactMaxBytes } : {}),
    readiness: readinessProbe(
      database,
      state.value.pool,
      blobStorage,
      config.blobs?.kind === 's3' ? undefined : join(config.dataDir, 'objects'),
      hosts,
    ),
    ...(metrics ? { telemetry: metrics, metrics: metricsRoute(config) } : {}),
    logger: {
      warn: (message, fields) => logger.log('warn', 'api', message, fields),
      error: (message, fields) => logger.log('error', 'api', message, fields),
    },
  });

  const servers: HttpServer[] = [];
  const drains: DrainableHttp[] = [];
  let url: string;
  let s3Url: string | undefined;
  try {
    const api = serve({ fetch: app.fetch, port: config.port, hostname: config.host }) as HttpServer;
    servers.push(api);
    drains.push(drainableHttp(api));
    url = await listen(api);
    if (config.s3.port !== undefined) {
      const s3App = createS3App({
        blobStorage,
        s3Credentials,
        basePath: '',
        regions: s3Regions,
      });
      const s3Served = withS3Telemetry(s3App, metrics);
      const s3 = serve({ fetch: s3Served.fetch, port: config.s3.port, hostname: config.host }) as HttpServer;
      servers.push(s3);
      drains.push(drainableHttp(s3));
      s3Url = await listen(s3);
    }
  } catch (cause) {
    for (const server of servers) server.close();
    await closeHosts();
    await blobStorage.close();
    database.close();
    return err([`listen: ${messageOf(cause)}`]);
  }
  logger.log('info', 'listening', `Kindgi API on ${url}${s3Url ? `, S3 on ${s3Url}` : ''}`, {
    url,
    port: Number(new URL(url).port),
    ...(s3Url ? { s3Url, s3Port: Number(new URL(s3Url).port) } : {}),
    packs: [...hosts.keys()],
    development: loaded.development,
  });
  // Queued runs (left by an earlier process, or accepted by another server on the same database) start now.
  app.startRuns();

  let closing: Promise<void> | undefined;
  const running: RunningServer = {
    url,
    config,
    packs: [...hosts.keys()],
    close() {
      closing ??= (async () => {
        // New requests stop first; then runs still executing get the rest of the grace period (and are
        // cancelled after it), so none is left `running`; then the pack services drain.
        const started = Date.now();
        await Promise.all(drains.map((drain) => drain.close(config.drainMs)));
        const runs = await app.drainRuns(Math.max(0, config.drainMs - (Date.now() - started)));
        if (runs.cancelled > 0)
          logger.log('warn', 'runs-cancelled', `cancelled ${runs.cancelled} runs still running at shutdown`, runs);
        await closeHosts();
        await blobStorage.close();
        database.close();
      })();
      return closing;
    },
  };
  if (s3Url) Object.assign(running, { s3Url });
  return ok(running);
}
