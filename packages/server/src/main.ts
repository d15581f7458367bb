#!/usr/bin/env node

import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { messageOf } from '@kindgi/protocol';
import { loadServerConfig } from './config/config.js';
import { startServer } from './server.js';
import { createJsonLogger } from './telemetry/logger.js';
import { startTracing } from './telemetry/tracing.js';

const USAGE = `Usage: kindgi-server [--config kindgi.server.json] [-h | --help] [--version]

Starts the Kindgi API (REST + SSE at /v1, S3 at /s3) with durable storage in dataDir and a supervised
pack service for each configured pack. Without a config, starts a development deployment in .kindgi/
with a generated token and S3 key pair (written to .kindgi/credentials.json and printed once).
Every config field can also be set from the environment: KINDGI_SERVER_HOST, KINDGI_SERVER_PORT,
KINDGI_SERVER_DATA_DIR, KINDGI_SERVER_S3_PORT, KINDGI_SERVER_S3_REGIONS (comma-separated, besides us-east-1),
KINDGI_SERVER_S3_MULTIPART_EXPIRY_MS, KINDGI_SERVER_DOCS, KINDGI_SERVER_TOKENS (JSON),
KINDGI_SERVER_S3_CREDENTIALS (JSON), KINDGI_SERVER_PACKS (JSON), KINDGI_SERVER_ARTIFACT_MAX_BYTES,
KINDGI_SERVER_DRAIN_MS, KINDGI_SERVER_PACK_USER, KINDGI_SERVER_DATABASE_URL, KINDGI_SERVER_METRICS_ENABLED, KINDGI_SERVER_METRICS_PATH, KINDGI_SERVER_METRICS_TOKEN,
KINDGI_SERVER_BLOBS_KIND, _ENDPOINT, _REGION, _BUCKET, _ACCESS_KEY_ID, _SECRET_ACCESS_KEY, _FORCE_PATH_STYLE, _PREFIX
(the blobs block, field by field: docs/scaling.md).
Traces are exported over OTLP/HTTP when the standard OpenTelemetry variables ask for them
(OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_TRACES_EXPORTER=otlp; OTEL_SERVICE_NAME,
OTEL_TRACES_SAMPLER, OTEL_SDK_DISABLED=true). Off by default.

Options:
  -c, --config <path>   the config file (relative to the working directory; paths inside it are
                        relative to its folder)
  -h, --help            print this help
  --version             print the server's version

Exit codes: 0 stopped cleanly, 1 failed to start, 2 bad arguments.
`;

function packageVersion(): string {
  try {
    const manifest = readFileSync(new URL('../package.json', import.meta.url), 'utf8');
    return (JSON.parse(manifest) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

async function main(argv: string[]): Promise<number> {
  const logger = createJsonLogger();
  let args: { config?: string; help?: boolean; version?: boolean };
  try {
    args = parseArgs({
      args: argv,
      options: {
        config: { type: 'string', short: 'c' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean' },
      },
      strict: true,
    }).values;
  } catch (cause) {
    process.stderr.write(`kindgi-server: ${messageOf(cause)}\n\n${USAGE}`);
    return 2;
  }
  if (args.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (args.version) {
    process.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  const loaded = loadServerConfig(args.config ? { configPath: args.config } : {});
  if (loaded.kind === 'err') {
    logger.log('error', 'config-invalid', `The server config is invalid: ${loaded.error.join('; ')}`, {
      problems: loaded.error,
    });
    return 1;
  }
  // Signals are handled from the start: one that arrives while packs are still being indexed and started
  // stops the server as soon as it is up (or exits 0 if it never came up), instead of killing the process
  // with pack services half started.
  let signalled: string | undefined;
  let stop: ((signal: string) => void) | undefined;
  const onSignal = (signal: string) => {
    if (signalled) return;
    signalled = signal;
    stop?.(signal);
  };
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));

  // Before any request: spans made from here on are exported (only when OTEL_* variables ask for it).
  const tracing = startTracing();
  const started = await startServer(loaded.value, { logger });
  if (started.kind === 'err') {
    logger.log('error', 'boot-failed', `The server did not start: ${started.error.join('; ')}`, {
      problems: started.error,
    });
    return signalled ? 0 : 1;
  }
  const server = started.value;
  stop = (signal: string) => {
    logger.log('info', 'draining', `${signal}: draining`);
    server
      .close()
      .then(() => tracing.shutdown())
      .then(
        () => {
          logger.log('info', 'stopped', 'stopped');
          process.exit(0);
        },
        (cause: unknown) => {
          logger.log('error', 'stop-failed', String(cause));
          process.exit(1);
        },
      );
  };
  if (signalled) stop(signalled);
  return -1;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (cause: unknown) => {
    process.stderr.write(`${cause instanceof Error ? (cause.stack ?? cause.message) : String(cause)}\n`);
    process.exit(1);
  },
);
