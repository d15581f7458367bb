import { createHash, timingSafeEqual } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '@hono/node-server';
import { createApp, createS3App } from '@kindgi/api';
import type { Principal, RunCheckBinding, RunHandlerBinding, S3Credential, ToolRegistry } from '@kindgi/bindings';
import {
  createSqliteIdempotencyStore,
  createSqliteRunStore,
  openFsBlobStorage,
  openKindgiDatabase,
} from '@kindgi/blob-fs';
import { err, ok, packError, type Result } from '@kindgi/protocol';
import type { LoadedServerConfig, ServerConfig } from './config.js';
import { ensureDevCredentials, withDevCredentials } from './dev-credentials.js';
import { type DrainableHttp, drainableHttp } from './drain.js';
import type { ServerLogger } from './logger.js';
import { type PackHost, startPackHost } from './pack-host.js';
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

function defaultPackCommand(): string[] {
  const main = fileURLToPath(import.meta.resolve('@kindgi/pack-service/main'));
  // Packs are served from their sources: tsx's loader lets the pack service import TypeScript with real
  // ESM semantics (a CommonJS-style transpile would wrap a module's default export once more).
  const loader = import.meta.resolve('tsx/esm');
  return [process.execPath, '--import', loader, main];
}

function listen(server: HttpServer): Promise<string> {
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

  const database = openKindgiDatabase(config.dataDir);
  const storage = openFsBlobStorage({ dataDir: join(config.dataDir, 'objects'), database });
  if (storage.kind === 'err') {
    database.close();
    return err([`storage: ${storage.error.message}`]);
  }
  const blobStorage = storage.value;
  if (blobStorage.swept > 0)
    logger.log('info', 'storage-swept', `removed ${blobStorage.swept} leftovers of an earlier crash`);

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
    const started = await startPackHost({
      pack,
      workDir: join(config.dataDir, 'packs', String(position)),
      logger,
      command,
      onReindexed: refreshCatalog,
    });
    if (started.kind === 'err') {
      problems.push(started.error);
      continue;
    }
    const packId = started.value.index.packId;
    if (hosts.has(packId)) {
      problems.push(`${pack.dir}: pack ${packId} is configured twice`);
      await started.value.close();
      continue;
    }
    hosts.set(packId, started.value);
  }
  if (problems.length > 0) {
    await closeHosts();
    blobStorage.close();
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

  const runStore = createSqliteRunStore(database);
  const interrupted = runStore.failInterruptedRuns();
  if (interrupted.kind === 'ok' && interrupted.value.length > 0) {
    logger.log(
      'warn',
      'runs-interrupted',
      `failed ${interrupted.value.length} runs an earlier process left unfinished`,
      {
        runIds: interrupted.value.map((run) => run.runId),
      },
    );
  }

  const s3Credentials = s3CredentialResolver(config);
  const app = createApp({
    resolveToken: tokenResolver(config),
    runHandler,
    runCheck,
    toolRegistry: registry,
    blobStorage,
    s3Credentials,
    s3: { basePath: config.s3.basePath ?? '/s3' },
    runStore,
    idempotencyStore: createSqliteIdempotencyStore(database),
    ...(config.docs ? { openapi: { docs: true as const } } : {}),
    ...(config.artifactMaxBytes ? { artifactMaxBytes: config.artifactMaxBytes } : {}),
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
      const s3App = createS3App({ blobStorage, s3Credentials, basePath: '' });
      const s3 = serve({ fetch: s3App.fetch, port: config.s3.port, hostname: config.host }) as HttpServer;
      servers.push(s3);
      drains.push(drainableHttp(s3));
      s3Url = await listen(s3);
    }
  } catch (cause) {
    for (const server of servers) server.close();
    await closeHosts();
    blobStorage.close();
    database.close();
    return err([`listen: ${cause instanceof Error ? cause.message : String(cause)}`]);
  }
  logger.log('info', 'listening', `Kindgi API on ${url}${s3Url ? `, S3 on ${s3Url}` : ''}`, {
    url,
    port: Number(new URL(url).port),
    ...(s3Url ? { s3Url, s3Port: Number(new URL(s3Url).port) } : {}),
    packs: [...hosts.keys()],
    development: loaded.development,
  });

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
        blobStorage.close();
        database.close();
      })();
      return closing;
    },
  };
  if (s3Url) Object.assign(running, { s3Url });
  return ok(running);
}
