import { closeSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { err, ok, type Result } from '@kindgi/protocol';
import type { LogFormat, LogLevel } from '../log/log.js';
import { readPackServiceArgv } from './argv.js';
import { metricsSchema, packEnvSchema } from './env-settings.js';

/** The index path a pack image uses when neither `--index` nor `KINDGI_PACK_INDEX` names one. */
export const DEFAULT_PACK_INDEX_PATH = '/app/index.json';
export { DEFAULT_MAX_CONCURRENCY, DEFAULT_PACK_SERVICE_PORT } from './env-settings.js';

/** `strict`: a missing required env name keeps the service unready. `warn`: it serves and logs. */
export type EnvCheckMode = 'strict' | 'warn';
/** `on`: undeclared variables are dropped before pack code loads. */
export type EnvFilterMode = 'on' | 'off';

/** Everything the process entry needs, read from argv and the environment. */
export interface PackServiceConfig {
  /** Absolute path of `index.json`. */
  indexPath: string;
  /** Absolute directory module paths resolve against (default: the index's directory). */
  moduleRoot: string;
  /** Absolute path of a bundle map (index source path → bundle path), when given. */
  bundleMapPath?: string;
  /** Listen address; every interface when absent. */
  host?: string;
  /** `0` = any free port (the `listening` record names the bound one). */
  port: number;
  token: string;
  /** Where the token came from: `--token-fd` keeps it out of every environment block. */
  tokenSource: 'env' | 'fd';
  maxConcurrency: number;
  /** The largest reply body (`KINDGI_PACK_SERVICE_MAX_OUTPUT_BYTES`, default 10 MiB). */
  maxOutputBytes: number;
  envCheck: EnvCheckMode;
  envFilter: EnvFilterMode;
  /** `KINDGI_PACK_SERVICE_METRICS=on`: Prometheus text at `path`, behind `token` when one is set. */
  metrics?: { path: string; token?: string };
  log: { level: LogLevel; levels: Record<string, LogLevel>; format: LogFormat | 'auto' };
}

type Env = Readonly<Record<string, string | undefined>>;

/** The metrics bearer token's variable; like the pack token it never reaches pack code's environment. */
export const METRICS_TOKEN_ENV_VAR = 'KINDGI_PACK_SERVICE_METRICS_TOKEN';

/**
 * Reads the whole descriptor (a pipe the supervisor or the process entry wrote and closed), then closes
 * it: the pack token, then on a second line the metrics token when there is one (neither may hold
 * whitespace).
 */
function readTokenFd(raw: string, problems: string[]): string | undefined {
  const fd = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(fd) || fd < 3) {
    problems.push(`--token-fd must be a file descriptor number of 3 or more, got ${JSON.stringify(raw)}`);
    return undefined;
  }
  try {
    const text = readFileSync(fd, 'utf8');
    closeSync(fd);
    return text;
  } catch (thrown) {
    problems.push(`Cannot read the token from file descriptor ${fd}: ${(thrown as Error).message}`);
    return undefined;
  }
}

/** The metrics settings (`KINDGI_PACK_SERVICE_METRICS=on`); the token may come on the descriptor's second line. */
function readMetrics(env: Env, fromFd: string | undefined, problems: string[]): PackServiceConfig['metrics'] {
  const read = metricsSchema(METRICS_TOKEN_ENV_VAR).safeParse({
    path: env.KINDGI_PACK_SERVICE_METRICS_PATH?.trim() || '/metrics',
    token: (fromFd ?? env[METRICS_TOKEN_ENV_VAR])?.trim(),
  });
  if (!read.success) {
    problems.push(...read.error.issues.map((issue) => issue.message));
    return undefined;
  }
  const { path, token } = read.data;
  return token ? { path, token } : { path };
}

/**
 * Reads the process entry's settings from its arguments and environment, collecting every problem so
 * one failed start lists them all. Relative paths resolve against `cwd`.
 */
export function readPackServiceConfig(
  argv: readonly string[],
  env: Env,
  cwd: string = process.cwd(),
): Result<PackServiceConfig, string[]> {
  const { values: args, problems } = readPackServiceArgv(argv);
  const fd = args['token-fd'];
  const fromFd = fd === undefined ? undefined : readTokenFd(fd, problems);
  const lines = fromFd?.split('\n');
  const read = packEnvSchema(
    fromFd === undefined
      ? { name: 'KINDGI_PACK_SERVICE_TOKEN', missing: 'KINDGI_PACK_SERVICE_TOKEN is required' }
      : { name: `The token on file descriptor ${fd}`, missing: `The token on file descriptor ${fd} is empty` },
  ).safeParse({
    port: env.PORT,
    // A descriptor that could not be read has its problem named already.
    token: fd !== undefined && fromFd === undefined ? undefined : (lines?.[0] ?? env.KINDGI_PACK_SERVICE_TOKEN ?? ''),
    maxConcurrency: env.KINDGI_PACK_SERVICE_MAX_CONCURRENCY,
    maxOutputBytes: env.KINDGI_PACK_SERVICE_MAX_OUTPUT_BYTES,
    envCheck: env.KINDGI_PACK_ENV_CHECK,
    envFilter: env.KINDGI_PACK_ENV_FILTER,
    logLevel: env.KINDGI_LOG_LEVEL,
    logLevels: env.KINDGI_LOG_LEVELS,
    logFormat: env.KINDGI_LOG_FORMAT,
    metrics: env.KINDGI_PACK_SERVICE_METRICS,
  });
  if (!read.success) problems.push(...read.error.issues.map((issue) => issue.message));
  const metrics = env.KINDGI_PACK_SERVICE_METRICS === 'on' ? readMetrics(env, lines?.[1], problems) : undefined;
  if (!read.success || problems.length > 0) return err(problems);
  const settings = read.data;
  const indexPath = resolve(cwd, args.index ?? (env.KINDGI_PACK_INDEX || DEFAULT_PACK_INDEX_PATH));
  const config: PackServiceConfig = {
    indexPath,
    moduleRoot: resolve(cwd, args['module-root'] ?? dirname(indexPath)),
    port: settings.port,
    token: settings.token ?? '',
    tokenSource: fd === undefined ? 'env' : 'fd',
    maxConcurrency: settings.maxConcurrency,
    maxOutputBytes: settings.maxOutputBytes,
    envCheck: settings.envCheck,
    envFilter: settings.envFilter,
    log: { level: settings.logLevel, levels: settings.logLevels, format: settings.logFormat },
  };
  if (args['bundle-map'] !== undefined) config.bundleMapPath = resolve(cwd, args['bundle-map']);
  if (args.host !== undefined) config.host = args.host;
  if (metrics !== undefined) config.metrics = metrics;
  return ok(config);
}
