import { createSecretRedactor } from '@kindgi/bindings';
import { err, ok, type Result } from '@kindgi/protocol';
import type { LoadedServerConfig, ServerConfig } from './config/config.js';
import { serverAgents } from './start/agents.js';
import { createServerApp } from './start/app.js';
import { s3CredentialResolver, withStartCredentials } from './start/credentials.js';
import { isolatePacks } from './start/isolation.js';
import { startListeners } from './start/listen.js';
import { defaultPackCommand, startPacks } from './start/packs.js';
import { openServerSecrets } from './start/secrets.js';
import { openStorage } from './start/storage.js';
import { createTeardown, type Teardown } from './start/teardown.js';
import type { ServerLogger } from './telemetry/logger.js';
import { createServerMetrics } from './telemetry/metrics.js';
import { redactingLogger } from './telemetry/redacting-logger.js';

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

/** Runs the teardown stack, logging each step that failed (the others ran anyway). */
async function release(teardown: Teardown, logger: ServerLogger): Promise<void> {
  for (const failure of await teardown.run()) {
    logger.log('warn', 'teardown-failed', `closing ${failure.step} failed: ${failure.message}`, { ...failure });
  }
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
  // Secret values sent to packs are remembered here and kept out of every record the server logs.
  const redactor = createSecretRedactor();
  const logger = redactingLogger(options.logger, redactor);
  const command = options.packCommand ?? defaultPackCommand();
  // Before anything is written to the data directory: who pack code runs as decides who may enter it.
  const isolation = isolatePacks(loaded, command, logger);
  if (isolation.kind === 'err') return err(isolation.error);
  const config = withStartCredentials(loaded);
  // Everything opened from here on is released by this one stack, in reverse: on a failed start and on close.
  const teardown = createTeardown();
  const failed = async (problems: string[]) => {
    await release(teardown, logger);
    return err(problems);
  };

  const storage = await openStorage(config, logger, teardown);
  if (storage.kind === 'err') return failed(storage.error);
  const { blobStorage } = storage.value;
  const secrets = await openServerSecrets(config.secrets, storage.value.secretRows, config.dataDir, logger);
  if (secrets.kind === 'err') return failed(secrets.error);
  const metrics = config.metrics.enabled ? createServerMetrics() : undefined;
  const packs = await startPacks(config, { logger, command, metrics, isolation: isolation.value }, teardown);
  if (packs.kind === 'err') return failed(packs.error);
  const { hosts } = packs.value;
  const agents = serverAgents(config, packs.value, process.env);
  if (agents.kind === 'err') return failed([agents.error]);

  const s3Credentials = s3CredentialResolver(config);
  // us-east-1 stays accepted (and is the region errors name); the config adds to it.
  const s3Regions = ['us-east-1', ...(config.s3.regions ?? [])];
  const app = createServerApp({
    config,
    logger,
    storage: storage.value,
    packs: packs.value,
    metrics,
    s3Credentials,
    s3Regions,
    secrets: { ...secrets.value, onSend: (values) => redactor.remember(values) },
    agents: agents.value,
  });

  const listeners = await startListeners({
    config,
    fetch: app.fetch,
    blobStorage,
    s3Credentials,
    s3Regions,
    telemetry: metrics,
  });
  if (listeners.kind === 'err') return failed(listeners.error);
  const { url, s3Url, drains } = listeners.value;
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
        // cancelled after it), so none is left `running`; then the pack services drain, then storage closes.
        const started = Date.now();
        await Promise.all(drains.map((drain) => drain.close(config.drainMs)));
        const runs = await app.drainRuns(Math.max(0, config.drainMs - (Date.now() - started)));
        if (runs.cancelled > 0)
          logger.log('warn', 'runs-cancelled', `cancelled ${runs.cancelled} runs still running at shutdown`, runs);
        await release(teardown, logger);
      })();
      return closing;
    },
  };
  if (s3Url) Object.assign(running, { s3Url });
  return ok(running);
}
