import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import {
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_OUTPUT_BYTES,
  err,
  messageOf,
  ok,
  PACK_HEADERS,
  PACK_PROTOCOL_VERSION,
  type PackIndex,
  type PackInfo,
  type Result,
} from '@kindgi/protocol';
import { createPackLog, type PackLog } from '../log/log.js';
import { DEFAULT_MAX_CONCURRENCY, type EnvCheckMode } from '../process/config.js';
import { missingPackEnv } from '../process/pack-env.js';
import { sendError, sendJson } from '../transport/http-reply.js';
import { type MetricsRouteOptions, metricsRoute } from '../transport/metrics-route.js';
import { tokenChecker } from '../transport/token.js';
import { serveInvoke } from './call.js';
import { createCatalog } from './catalog.js';
import { defaultRunners, type ModuleImporter, type PackRunners } from './runners.js';

/** How a pack service is built. */
export interface PackServiceOptions {
  /** The pack's `index.json`, already read. */
  index: PackIndex;
  /** Maps an index module path (`tools/echo/index.js`) to the file to import. */
  resolveModule: (modulePath: string) => string;
  /** The shared secret callers send as `kindgi-pack-token`. */
  token: string;
  /** Calls in flight before new ones answer 503 `overloaded`. Default 32. */
  maxConcurrency?: number;
  /** Default 10 MiB. */
  maxBodyBytes?: number;
  /** The largest reply body; a bigger result is answered `output-too-large`. Default 10 MiB. */
  maxOutputBytes?: number;
  /** A call's deadline when the caller names none. Default 120000. */
  defaultTimeoutMs?: number;
  /** Default `strict`. */
  envCheck?: EnvCheckMode;
  /** Where required env names are looked up. Default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Replaces `import()` for prewarm and calls (test seam). */
  importModule?: ModuleImporter;
  /** Records (JSON lines). Default: stderr at `info`. */
  log?: PackLog;
  /** The handler runner (default `@kindgi/call-runner`). */
  runners?: PackRunners;
  /**
   * A span per call (`runHandler <toolId>` / `runCheck <checkId>`) under the caller's `traceparent`,
   * through the global OpenTelemetry provider (the process entry registers one from `OTEL_*`). Default false.
   */
  tracing?: boolean;
  /** Serves `GET <path>` (Prometheus text) and counts every call; off when absent. */
  metrics?: MetricsRouteOptions;
}

/** A pack service: a `node:http` request handler plus its lifecycle. */
export interface PackService {
  /** The request handler for `http.createServer`. */
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** Calls admitted and not yet answered. */
  inFlight(): number;
  /** Imports every module once; the service is ready only after this succeeds. Lists every failure. */
  prewarm(): Promise<Result<void, string[]>>;
  /** Stops admitting calls (503 `draining`) and waits up to `ms` for in-flight ones; true when none are left. */
  drain(ms: number): Promise<boolean>;
  /** What `GET /v1/info` answers. */
  info(): PackInfo;
  /** Required env names without a value, sorted. */
  missingEnv(): string[];
  /** Prewarmed, not draining, and (strict check) no required env missing. */
  isReady(): boolean;
  isDraining(): boolean;
}

const RETRY = { 'retry-after': '1' };
const ROUTES: Record<string, 'GET' | 'POST'> = {
  '/v1/invoke': 'POST',
  '/v1/info': 'GET',
  '/v1/index': 'GET',
  '/healthz': 'GET',
  '/readyz': 'GET',
};

function pathOf(url: string | undefined): string {
  const raw = url ?? '/';
  const q = raw.indexOf('?');
  return q === -1 ? raw : raw.slice(0, q);
}

/** Builds a pack service over an index. It is not ready until `prewarm()` succeeds. */
export function createPackService(options: PackServiceOptions): PackService {
  const { index } = options;
  const catalog = createCatalog(index, options.resolveModule);
  const runners = options.runners ?? defaultRunners;
  const log = options.log ?? createPackLog();
  const env = options.env ?? process.env;
  const envCheck = options.envCheck ?? 'strict';
  const maxConcurrency = options.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY;
  const tokenMatches = tokenChecker(options.token);
  const deps = {
    catalog,
    runners,
    log,
    packId: index.packId,
    artifactVersion: index.artifactVersion,
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    maxOutputBytes: options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
    defaultTimeoutMs: options.defaultTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS,
    importModule: options.importModule,
    metrics: options.metrics?.metrics,
    tracing: options.tracing ?? false,
  };
  const metrics = options.metrics === undefined ? undefined : metricsRoute(options.metrics);
  let prewarmed = false;
  let draining = false;
  let inFlight = 0;
  let missingLogged = false;

  const missingEnv = (): string[] => missingPackEnv(index.env, env);

  /** The 503 reply that applies now, if any, in the published order. */
  function unavailable(res: ServerResponse, checkLoad: boolean): boolean {
    if (draining) {
      if (checkLoad) deps.metrics?.rejected('draining');
      sendError(res, 503, 'draining', {}, RETRY);
      return true;
    }
    // A pack without required env (most) skips building and sorting an empty list per call.
    if (envCheck === 'strict' && (index.env?.required?.length ?? 0) > 0) {
      const missing = missingEnv();
      if (missing.length > 0) {
        if (checkLoad) deps.metrics?.rejected('missing-env');
        sendError(res, 503, 'missing env', { missingEnv: missing }, RETRY);
        return true;
      }
    }
    if (!prewarmed) {
      if (checkLoad) deps.metrics?.rejected('not-ready');
      sendError(res, 503, 'not ready', {}, RETRY);
      return true;
    }
    if (checkLoad && inFlight >= maxConcurrency) {
      deps.metrics?.rejected('overloaded');
      sendError(res, 503, 'overloaded', {}, RETRY);
      return true;
    }
    return false;
  }

  function info(): PackInfo {
    return {
      protocol: PACK_PROTOCOL_VERSION,
      packId: index.packId,
      packVersion: index.packVersion,
      artifactVersion: index.artifactVersion,
      tools: catalog.tools.map(({ entry }) =>
        entry.version === undefined ? { id: entry.id } : { id: entry.id, version: entry.version },
      ),
      checks: catalog.checks.map((check) => check.checkId),
      missingEnv: missingEnv(),
    };
  }

  function invoke(req: IncomingMessage, res: ServerResponse): void {
    if (unavailable(res, true)) return;
    const contentType = req.headers['content-type'];
    if (typeof contentType !== 'string' || !contentType.toLowerCase().includes('application/json')) {
      sendError(res, 415, 'Content-Type must be application/json');
      return;
    }
    const admittedAt = performance.now();
    inFlight++;
    serveInvoke(deps, req, res, admittedAt, callEnded);
  }

  /** A call's end: one function for every call, so none needs a closure or a promise reaction of its own. */
  function callEnded(res: ServerResponse, failed: boolean, thrown?: unknown): void {
    if (!failed) {
      inFlight--;
      return;
    }
    try {
      const message = messageOf(thrown);
      log.record('service-error', 'error', `The pack service failed while handling a call: ${message}`);
      sendError(res, 500, message);
    } finally {
      inFlight--;
    }
  }

  function route(req: IncomingMessage, res: ServerResponse): void {
    const path = pathOf(req.url);
    const method = ROUTES[path];
    if (metrics !== undefined && path === metrics.path && method === undefined) {
      if (req.method !== 'GET') sendError(res, 405, 'Use GET');
      else metrics.serve(req.headers.authorization, res);
    } else if (method === undefined) sendError(res, 404, `No route ${req.url ?? ''}`);
    else if (req.method !== method) sendError(res, 405, `Use ${method}`);
    else if (path === '/healthz') sendJson(res, 200, '{"status":"ok"}');
    else if (path === '/readyz') {
      if (!unavailable(res, false)) sendJson(res, 200, '{"status":"ready"}');
    } else if (!tokenMatches(req.headers[PACK_HEADERS.token])) sendError(res, 401, 'Bad pack token');
    else if (path === '/v1/info') sendJson(res, 200, JSON.stringify(info()));
    // The index served, for a runtime that reaches this service remotely and needs the tools' schemas.
    else if (path === '/v1/index') sendJson(res, 200, JSON.stringify(index));
    else invoke(req, res);
  }

  function handle(req: IncomingMessage, res: ServerResponse): void {
    try {
      route(req, res);
    } catch (thrown) {
      sendError(res, 500, messageOf(thrown));
    }
  }

  async function prewarm(): Promise<Result<void, string[]>> {
    const problems: string[] = [];
    const owners = new Map<string, string>();
    for (const tool of catalog.tools) if (!owners.has(tool.modulePath)) owners.set(tool.modulePath, tool.entry.id);
    for (const check of catalog.checks) if (!owners.has(check.modulePath)) owners.set(check.modulePath, check.checkId);
    const outcomes = await Promise.all(
      [...owners].map(async ([modulePath, id]) => ({
        id,
        outcome: await runners.importModule(modulePath, options.importModule),
      })),
    );
    for (const { id, outcome } of outcomes) {
      if (outcome.kind === 'err') {
        const thrown = outcome.error.thrown;
        problems.push(`${id}: ${thrown instanceof Error ? messageOf(thrown) : outcome.error.description}`);
      }
    }
    if (!missingLogged) {
      missingLogged = true;
      const missing = missingEnv();
      if (missing.length > 0) {
        log.record('missing-env', 'warn', `The pack's env.required names have no value: ${missing.join(', ')}`, {
          check: envCheck,
          names: missing,
        });
      }
    }
    if (problems.length > 0) return err(problems);
    prewarmed = true;
    return ok(undefined);
  }

  async function drain(ms: number): Promise<boolean> {
    draining = true;
    const until = performance.now() + ms;
    while (inFlight > 0 && performance.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    return inFlight === 0;
  }

  return {
    handle,
    inFlight: () => inFlight,
    prewarm,
    drain,
    info,
    missingEnv,
    isReady: () => prewarmed && !draining && (envCheck === 'warn' || missingEnv().length === 0),
    isDraining: () => draining,
  };
}
