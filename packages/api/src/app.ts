import { OpenAPIHono } from '@hono/zod-openapi';
import {
  type AgentRegistry,
  type ApiLogger,
  type BlobStorageBinding,
  cachedSecretStore,
  consoleLogger,
  DEFAULT_SECRET_ENV,
  type IdempotencyStore,
  type ModelCatalog,
  type RunCheckBinding,
  type RunHandlerBinding,
  type RunStore,
  type S3CredentialBinding,
  type TelemetryBinding,
  type TokenResolver,
  type ToolRegistry,
  toRunCheck,
} from '@kindgi/bindings';
import { type RunExecutionOptions, RunExecutor } from '@kindgi/run-worker';
import { createS3App } from '@kindgi/s3';
import { trimTrailingSlash } from 'hono/trailing-slash';
import { createTurnRunner } from './agents/turn-runner.js';
import type { AppEnv } from './env.js';
import { installErrorHandlers } from './errors/install.js';
import { runErrorFromFailure } from './errors/run-errors.js';
import { createInMemoryIdempotencyStore } from './idempotency/in-memory-store.js';
import { idempotencyMiddleware } from './idempotency/middleware.js';
import { type McpOption, mcpFace } from './mcp.js';
import { authMiddleware } from './middleware/auth.js';
import { jsonBodyLimitMiddleware } from './middleware/body-limit.js';
import { requestIdMiddleware } from './middleware/request-id.js';
import { validationHook } from './middleware/validation-hook.js';
import { docsScriptPath, mountDocs } from './openapi/docs.js';
import { mountDocument, OPENAPI_PATH, type OpenApiMeta, registerSecurity } from './openapi/document.js';
import { locateScalarBundle } from './openapi/scalar-bundle.js';
import { apiPackCaller, type SecretsInput, secretsPipeline } from './pack-caller.js';
import { createCursorSealer } from './pagination/cursor-seal.js';
import { registerAgentRoutes } from './routes/agents/handlers.js';
import { registerApprovalRoutes } from './routes/approvals/handlers.js';
import { registerArtifactRoutes } from './routes/artifacts/handlers.js';
import { registerGuardrailRoutes } from './routes/guardrails/handlers.js';
import { HEALTH_PATHS, type ReadinessProbe, registerHealthRoutes } from './routes/health.js';
import { registerRunRoutes } from './routes/runs/handlers.js';
import { registerSecretRoutes } from './routes/secrets/handlers.js';
import { registerToolRoutes } from './routes/tools/handlers.js';
import type { SseOptions } from './runs/stream.js';
import { DEFAULT_MAX_STREAMS_PER_TENANT } from './runs/stream-slots.js';
import { applyTelemetry } from './telemetry/app-hook.js';
import { type MetricsRouteOptions, mountMetricsRoute } from './telemetry/metrics-route.js';

/** Everything `createApp` is wired with. Only `resolveToken` and `runHandler` are required. */
export interface CreateAppInput {
  /** Bearer token → principal (with `tenantId`), or null. */
  resolveToken: TokenResolver;
  /** Calls a tool in a pack (the protocol client's invoke). */
  runHandler: RunHandlerBinding;
  /** Mounts /v1/artifacts (and, with `s3Credentials`, /s3). */
  blobStorage?: BlobStorageBinding;
  /** With `blobStorage`, mounts the S3 wire surface at `s3.basePath`. */
  s3Credentials?: S3CredentialBinding;
  /** Where the S3 surface is mounted. Default `/s3`; `''` gives it every path the REST routes do not take. */
  s3?: { basePath?: string; regions?: readonly string[] };
  /** Mounts guardrail evaluation and lets runs name guardrails. */
  runCheck?: RunCheckBinding;
  /** Mounts tool and guardrail listings; checks tool ids before calls. */
  toolRegistry?: ToolRegistry;
  /** Mounts /v1/runs. */
  runStore?: RunStore;
  /**
   * The tenants' agents: mounts /v1/agents and, with `runStore`, /v1/approvals and agent runs (`POST /v1/runs`
   * with `agentId`, turns by @kindgi/agent-kernel over the app's pack-call pipeline). Without `models` (or
   * without `toolRegistry`) an agent run is 501 `agents-unsupported`.
   */
  agents?: { registry: AgentRegistry; models?: ModelCatalog | undefined };
  /**
   * Mounts /v1/secrets and sends every tool call the secrets its tool declares, for the call's tenant, in
   * `env` (default `production`). `declared` names what a call's tool declares; default: the registry's
   * descriptor of the tool.
   */
  secrets?: SecretsInput;
  /** Default: `createInMemoryIdempotencyStore()` (one process only). */
  idempotencyStore?: IdempotencyStore;
  openapi?: OpenApiMeta & { docs?: true | { path?: string; title?: string } };
  /**
   * Mounts `@kindgi/mcp`'s MCP face at `path` (default `/mcp`): the registry's tools for the token's tenant,
   * called through the same pipeline as `/v1/tools/{id}/invoke`. Needs `toolRegistry`.
   */
  mcp?: true | McpOption;
  logger?: ApiLogger;
  /** Largest artifact upload in bytes. Default 100 MB. */
  artifactMaxBytes?: number;
  /** Largest JSON body in bytes. Default 1 MiB. */
  jsonBodyMaxBytes?: number;
  /** Key for sealing page cursors; set it when several instances serve one deployment. */
  cursorSecret?: string;
  /** Run queueing and execution (per-pack concurrency and queue bound, retry window, lease). */
  runs?: Partial<RunExecutionOptions>;
  /** The pack ids this process serves, asked at each claim: it executes only their runs (default: any). */
  servedPacks?: () => readonly string[];
  /** SSE pacing (keep-alive, journal poll, maximum stream length) and the per-tenant cap on open streams. */
  sse?: Partial<SseOptions>;
  /** What `GET /readyz` checks (storage, packs, …); without it the app is ready whenever it answers. */
  readiness?: ReadinessProbe;
  /** The clock runs are stamped with. */
  clock?: () => Date;
  /** Where request, tool call, run and stream counts go (the server's is prom-client). */
  telemetry?: TelemetryBinding;
  /** Serves `telemetry.scrape()` at `path` (default `/metrics`), behind `token` when set. */
  metrics?: MetricsRouteOptions;
}

/** The default upload limit: 100 MB. */
export const DEFAULT_ARTIFACT_MAX_BYTES = 100 * 1000 * 1000;
const DEFAULT_JSON_BODY_MAX_BYTES = 1024 * 1024;

/** The app `createApp` returns: a Hono app, plus what a process needs to shut it down cleanly. */
export type KindgiApp = OpenAPIHono<AppEnv> & {
  /**
   * Waits up to `timeoutMs` for the runs this process is executing, then cancels the rest (call it on
   * SIGTERM, after the HTTP server stopped accepting requests).
   */
  drainRuns(timeoutMs: number): Promise<{ finished: number; cancelled: number }>;
  /**
   * Starts executing queued runs now rather than at the first `POST /v1/runs` (call it at boot when the run
   * store holds runs from an earlier process or is shared with other servers).
   */
  startRuns(): void;
};

/** Assembles the Hono app: /health, /healthz, /readyz, /v1 (auth, idempotency, JSON errors), docs and, when bound, /s3. */
export function createApp(bindings: CreateAppInput): KindgiApp {
  // Every pack call, run transition and request is traced and counted: mounted before anything else.
  const { input, middleware: telemetry } = applyTelemetry(bindings);
  // Every caller of a pack below goes through this one pipeline (deadline, then the traced bindings).
  const secretsEnv = input.secrets?.env ?? DEFAULT_SECRET_ENV;
  // One cache for calls and routes: a secret set here reaches this process's next call at once.
  const secrets = input.secrets ? { ...input.secrets, store: cachedSecretStore(input.secrets.store) } : undefined;
  const callPack = apiPackCaller(
    input.runHandler,
    input.runCheck,
    secrets ? secretsPipeline(secrets, secretsEnv, input.toolRegistry) : undefined,
  );
  const runCheck = input.runCheck === undefined ? undefined : toRunCheck(callPack);
  const logger = input.logger ?? consoleLogger;
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.use('*', telemetry);
  if (input.telemetry?.scrape && input.metrics) mountMetricsRoute(app, input.telemetry.scrape, input.metrics);
  const cursors = createCursorSealer(input.cursorSecret);
  const docs = input.openapi?.docs;
  const docsPath = docs === true || docs === undefined ? '/docs' : (docs.path ?? '/docs');
  // Located before any route exists, so a missing Scalar install fails createApp rather than a visitor.
  const docsBundle = docs === undefined ? undefined : locateScalarBundle();

  const rest = requestIdMiddleware();
  for (const path of HEALTH_PATHS) app.use(path, rest);
  app.use('/v1/*', rest);
  // A GET/HEAD that found nothing only because of a trailing slash is redirected (301) to the canonical path.
  app.use('/v1/*', trimTrailingSlash());
  app.use('/v1/*', authMiddleware(input.resolveToken, new Set([OPENAPI_PATH, docsPath, docsScriptPath(docsPath)])));
  app.use('/v1/*', jsonBodyLimitMiddleware(input.jsonBodyMaxBytes ?? DEFAULT_JSON_BODY_MAX_BYTES));
  app.use('/v1/*', idempotencyMiddleware({ store: input.idempotencyStore ?? createInMemoryIdempotencyStore() }));

  registerSecurity(app);
  registerHealthRoutes(app, input.readiness);
  if (input.blobStorage) {
    registerArtifactRoutes(app, {
      blobStorage: input.blobStorage,
      runStore: input.runStore,
      cursors,
      maxBytes: input.artifactMaxBytes ?? DEFAULT_ARTIFACT_MAX_BYTES,
    });
  }
  registerToolRoutes(app, { callPack, toolRegistry: input.toolRegistry, cursors });
  if (secrets) registerSecretRoutes(app, { store: secrets.store, env: secretsEnv, cursors });
  if (input.toolRegistry) {
    registerGuardrailRoutes(app, { toolRegistry: input.toolRegistry, runCheck, cursors });
  }
  if (input.agents) registerAgentRoutes(app, { agents: input.agents.registry, cursors });
  // Agent turns run in the executor, but run-worker knows no kernel (the kernel depends on it): it gets a runner.
  const models = input.toolRegistry ? input.agents?.models : undefined;
  const runTurn =
    input.agents && input.toolRegistry && models
      ? createTurnRunner({ agents: input.agents.registry, tools: input.toolRegistry, callPack, models })
      : undefined;
  let executor: RunExecutor | undefined;
  if (input.runStore) {
    executor = new RunExecutor({
      ...(runTurn ? { runTurn } : {}),
      runStore: input.runStore,
      callPack,
      checks: runCheck !== undefined,
      describeFailure: runErrorFromFailure,
      logger,
      now: input.clock ?? (() => new Date()),
      ...(input.runs ? { options: input.runs } : {}),
      ...(input.servedPacks ? { servedPacks: input.servedPacks } : {}),
    });
    registerRunRoutes(app, {
      runStore: input.runStore,
      executor,
      toolRegistry: input.toolRegistry,
      runCheck,
      agents: input.agents ? { registry: input.agents.registry, runs: runTurn !== undefined } : undefined,
      cursors,
      logger,
      timing: {
        keepAliveMs: input.sse?.keepAliveMs ?? 15_000,
        pollMs: input.sse?.pollMs ?? 1_000,
        maxDurationMs: input.sse?.maxDurationMs ?? 5 * 60_000,
      },
      maxStreamsPerTenant: input.sse?.maxStreamsPerTenant ?? DEFAULT_MAX_STREAMS_PER_TENANT,
    });
    if (input.agents) registerApprovalRoutes(app, { runStore: input.runStore, cursors });
  }

  mountDocument(app, input.openapi ?? {});
  if (docs !== undefined) {
    const title = docs === true ? 'Kindgi API' : (docs.title ?? 'Kindgi API');
    mountDocs(app, { path: docsPath, title, documentUrl: OPENAPI_PATH, bundle: docsBundle });
  }

  if (input.mcp !== undefined) {
    if (input.toolRegistry === undefined) throw new Error('createApp: the mcp option needs a toolRegistry');
    // Bearer auth and JSON-RPC errors of its own, like /s3: routed before /s3 so a root S3 mount cannot shadow it.
    const deps = { resolveToken: input.resolveToken, toolRegistry: input.toolRegistry, callPack, logger };
    app.route('/', mcpFace(input.mcp, deps));
  }

  if (input.blobStorage && input.s3Credentials) {
    // SigV4 auth and XML errors of its own: none of the /v1 middleware above is scoped to its paths, and it
    // is routed after the REST routes so a root mount (basePath '') cannot shadow them.
    app.route(
      '/',
      createS3App({
        blobStorage: input.blobStorage,
        s3Credentials: input.s3Credentials,
        basePath: input.s3?.basePath ?? '/s3',
        ...(input.s3?.regions ? { regions: input.s3.regions } : {}),
        logger,
        ...(input.clock ? { clock: input.clock } : {}),
      }),
    );
  }

  installErrorHandlers(app, logger);
  const drainRuns: KindgiApp['drainRuns'] = async (timeoutMs) =>
    executor ? executor.drain(timeoutMs) : { finished: 0, cancelled: 0 };
  const startRuns = (): void => executor?.work();
  return Object.assign(app, { drainRuns, startRuns });
}
