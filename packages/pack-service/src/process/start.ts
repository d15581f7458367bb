import { access } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isAbsolute, resolve } from 'node:path';
import { err, ok, type Result } from '@kindgi/protocol';
import { createPackLog, type PackLog } from '../log/log.js';
import type { ModuleImporter, PackRunners } from '../service/runners.js';
import { createPackService, type PackService } from '../service/service.js';
import type { PackServiceConfig } from './config.js';
import { readBundleMap, readPackIndexFile } from './index-file.js';
import { reportDropped } from './isolate.js';
import { undeclaredPackEnv } from './pack-env.js';

/** How long `stop()` lets in-flight calls finish: sized for Cloud Run's 10 s from SIGTERM to SIGKILL. */
export const PACK_SERVICE_DRAIN_MS = 8000;

/** Settings of `startPackService` that are not read from the process (test seams and hosts). */
export type StartPackServiceConfig = Pick<PackServiceConfig, 'indexPath' | 'moduleRoot' | 'port' | 'token'> &
  Partial<Omit<PackServiceConfig, 'indexPath' | 'moduleRoot' | 'port' | 'token' | 'log'>> & {
    /** The environment the env check reads and the env filter edits. Default `process.env`. */
    env?: Record<string, string | undefined>;
    log?: PackLog;
    importModule?: ModuleImporter;
    runners?: PackRunners;
    defaultTimeoutMs?: number;
    maxBodyBytes?: number;
    /** A span per call through the global OpenTelemetry provider (see `PackServiceOptions.tracing`). */
    tracing?: boolean;
  };

/** A listening pack service. */
export interface StartedPackService {
  service: PackService;
  server: Server;
  /** The bound port (the real one when asked for 0). */
  port: number;
  /** `http://<host>:<port>` for a loopback or named host. */
  url: string;
  /** Drains for up to `drainMs` (default `PACK_SERVICE_DRAIN_MS`), then closes the server and its connections. */
  stop(drainMs?: number): Promise<void>;
}

async function resolveModules(
  config: StartPackServiceConfig,
  paths: string[],
): Promise<Result<(modulePath: string) => string, string[]>> {
  let bundles = new Map<string, string>();
  if (config.bundleMapPath !== undefined) {
    const read = await readBundleMap(config.bundleMapPath);
    if (read.kind === 'err') return read;
    bundles = read.value;
  }
  const resolveModule = (modulePath: string): string => {
    const target = bundles.get(modulePath) ?? modulePath;
    return isAbsolute(target) ? target : resolve(config.moduleRoot, target);
  };
  const problems: string[] = [];
  await Promise.all(
    [...new Set(paths)].map(async (modulePath) => {
      const file = resolveModule(modulePath);
      try {
        await access(file);
      } catch {
        problems.push(`Missing module: ${file}`);
      }
    }),
  );
  return problems.length > 0 ? err(problems.sort()) : ok(resolveModule);
}

/**
 * Boots a pack service the way the process entry does: reads the index and the bundle map, checks
 * every module exists, drops undeclared env (only when `envFilter` is `on`), prewarms every module, and
 * listens. Any boot problem is returned, all of them at once; nothing throws.
 */
export async function startPackService(config: StartPackServiceConfig): Promise<Result<StartedPackService, string[]>> {
  const log = config.log ?? createPackLog();
  const env = config.env ?? process.env;
  const read = await readPackIndexFile(config.indexPath);
  if (read.kind === 'err') return read;
  const index = read.value;
  const modulePaths = [
    ...index.tools.filter((tool) => tool.spec === undefined).map((tool) => tool.modulePath),
    ...index.guardrails.map((guardrail) => guardrail.checkModulePath),
  ];
  const resolved = await resolveModules(config, modulePaths);
  if (resolved.kind === 'err') return resolved;

  if (config.envFilter === 'on') {
    const dropped = undeclaredPackEnv(index.env, env);
    for (const name of dropped) delete env[name];
    reportDropped(log, dropped);
  }

  // prom-client is loaded only when metrics are on: a service without them pays nothing for it.
  let service: PackService | undefined;
  const metrics =
    config.metrics === undefined
      ? undefined
      : {
          ...config.metrics,
          metrics: (await import('../service/metrics.js')).createPackMetrics(() => service?.inFlight() ?? 0),
        };
  service = createPackService({
    index,
    resolveModule: resolved.value,
    token: config.token,
    env,
    log,
    ...(config.maxConcurrency !== undefined ? { maxConcurrency: config.maxConcurrency } : {}),
    ...(config.envCheck !== undefined ? { envCheck: config.envCheck } : {}),
    ...(config.defaultTimeoutMs !== undefined ? { defaultTimeoutMs: config.defaultTimeoutMs } : {}),
    ...(config.maxBodyBytes !== undefined ? { maxBodyBytes: config.maxBodyBytes } : {}),
    ...(config.maxOutputBytes !== undefined ? { maxOutputBytes: config.maxOutputBytes } : {}),
    ...(config.importModule !== undefined ? { importModule: config.importModule } : {}),
    ...(config.runners !== undefined ? { runners: config.runners } : {}),
    ...(metrics !== undefined ? { metrics } : {}),
    ...(config.tracing !== undefined ? { tracing: config.tracing } : {}),
  });
  const warmed = await service.prewarm();
  if (warmed.kind === 'err') return warmed;

  const server = createServer(service.handle);
  const listened = await new Promise<Result<AddressInfo, string[]>>((done) => {
    server.once('error', (error) => done(err([`Cannot listen on port ${config.port}: ${error.message}`])));
    server.listen(config.port, config.host, () => done(ok(server.address() as AddressInfo)));
  });
  if (listened.kind === 'err') return listened;
  const port = listened.value.port;
  const host =
    config.host === undefined || config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  log.lifecycle('listening', 'info', `Listening on port ${port}`, {
    port,
    packId: index.packId,
    artifactVersion: index.artifactVersion,
  });

  let stopping: Promise<void> | undefined;
  return ok({
    service,
    server,
    port,
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    stop(drainMs = PACK_SERVICE_DRAIN_MS) {
      stopping ??= service.drain(drainMs).then(
        () =>
          new Promise<void>((done) => {
            server.close(() => done());
            // Keep-alive sockets and calls still running past the grace are cut off.
            server.closeAllConnections();
          }),
      );
      return stopping;
    },
  });
}
