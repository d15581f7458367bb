import { closeSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { DEFAULT_MAX_OUTPUT_BYTES, err, ok, type Result } from '@kindgi/protocol';
import { isLogLevel, LOG_LEVELS, type LogFormat, type LogLevel } from '../log/log.js';

/** The index path a pack image uses when neither `--index` nor `KINDGI_PACK_INDEX` names one. */
export const DEFAULT_PACK_INDEX_PATH = '/app/index.json';
/** The port the process entry listens on when `PORT` is unset. */
export const DEFAULT_PACK_SERVICE_PORT = 8080;
/** The concurrency cap when `KINDGI_PACK_SERVICE_MAX_CONCURRENCY` is unset. */
export const DEFAULT_MAX_CONCURRENCY = 32;

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

/** The flags that take a value, and what the value is (for the messages). */
export const PACK_SERVICE_FLAGS = {
  '--index': 'a path',
  '--module-root': 'a directory',
  '--bundle-map': 'a path',
  '--host': 'an address',
  '--token-fd': 'a file descriptor number',
} as const;
type Flag = keyof typeof PACK_SERVICE_FLAGS;

/** True for a flag that takes a value. */
export function isFlag(name: string): name is Flag {
  return Object.hasOwn(PACK_SERVICE_FLAGS, name);
}

function readArgs(argv: readonly string[], problems: string[]): Partial<Record<Flag, string>> {
  const values: Partial<Record<Flag, string>> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const eq = arg.indexOf('=');
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    if (!isFlag(name)) {
      problems.push(`Unknown argument ${JSON.stringify(arg)}`);
      continue;
    }
    let value: string | undefined;
    if (eq > 0) value = arg.slice(eq + 1);
    else if (i + 1 < argv.length && !isFlag(argv[i + 1] ?? '')) value = argv[++i];
    if (value === undefined || value.trim() === '') {
      problems.push(`${name} needs ${PACK_SERVICE_FLAGS[name]}`);
      continue;
    }
    values[name] = value;
  }
  return values;
}

const TOKEN_RULE =
  'may hold only printable ASCII without spaces (it travels in an HTTP header). Use a random value such as `openssl rand -hex 32`.';

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

function readToken(env: Env, fromFd: string | undefined, fd: string | undefined, problems: string[]): string {
  if (fd !== undefined && fromFd === undefined) return '';
  const name = fromFd === undefined ? 'KINDGI_PACK_SERVICE_TOKEN' : `The token on file descriptor ${fd}`;
  const token = (fromFd?.split('\n')[0] ?? env.KINDGI_PACK_SERVICE_TOKEN ?? '').trim();
  if (token === '') {
    problems.push(fromFd === undefined ? 'KINDGI_PACK_SERVICE_TOKEN is required' : `${name} is empty`);
  } else if (!/^[\x21-\x7e]+$/.test(token)) {
    problems.push(`${name} ${TOKEN_RULE}`);
  }
  return token;
}

function readPort(env: Env, problems: string[]): number {
  const raw = env.PORT;
  if (raw === undefined || raw === '') return DEFAULT_PACK_SERVICE_PORT;
  const port = /^\d{1,5}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(port >= 0 && port <= 65535)) problems.push(`PORT must be a port number, got ${JSON.stringify(raw)}`);
  return port;
}

function readMetrics(env: Env, fromFd: string | undefined, problems: string[]): PackServiceConfig['metrics'] {
  const on = readChoice(env, 'KINDGI_PACK_SERVICE_METRICS', ['off', 'on'], problems);
  const token = (fromFd?.split('\n')[1] ?? env[METRICS_TOKEN_ENV_VAR])?.trim();
  if (on === 'off') return undefined;
  const path = env.KINDGI_PACK_SERVICE_METRICS_PATH?.trim() || '/metrics';
  if (!/^\/[\x21-\x7e]*$/.test(path) || path.includes('?')) {
    problems.push(`KINDGI_PACK_SERVICE_METRICS_PATH must be a path starting with /, not ${JSON.stringify(path)}`);
  }
  if (token !== undefined && token !== '' && !/^[\x21-\x7e]+$/.test(token)) {
    problems.push(`${METRICS_TOKEN_ENV_VAR} ${TOKEN_RULE}`);
  }
  return token ? { path, token } : { path };
}

function readPositive(env: Env, name: string, fallback: number, problems: string[]): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < 1) {
    problems.push(`${name} must be a positive integer, got ${JSON.stringify(raw)}`);
  }
  return value;
}

function readChoice<T extends string>(env: Env, name: string, choices: readonly [T, T], problems: string[]): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return choices[0];
  if ((choices as readonly string[]).includes(raw)) return raw as T;
  problems.push(`${name} must be \`${choices[0]}\` or \`${choices[1]}\`, not ${JSON.stringify(raw)}`);
  return choices[0];
}

function readLog(env: Env, problems: string[]): PackServiceConfig['log'] {
  const levelNames = LOG_LEVELS.join(', ');
  let level: LogLevel = 'info';
  const rawLevel = env.KINDGI_LOG_LEVEL?.trim().toLowerCase();
  if (rawLevel) {
    if (isLogLevel(rawLevel)) level = rawLevel;
    else problems.push(`KINDGI_LOG_LEVEL must be one of ${levelNames}, not ${JSON.stringify(env.KINDGI_LOG_LEVEL)}`);
  }
  const levels: Record<string, LogLevel> = {};
  for (const entry of (env.KINDGI_LOG_LEVELS ?? '').split(',')) {
    if (entry.trim() === '') continue;
    const [subsystem, value] = entry.split('=').map((part) => part.trim().toLowerCase());
    if (!subsystem || !value || !isLogLevel(value)) {
      problems.push(
        `KINDGI_LOG_LEVELS takes subsystem=level pairs (levels: ${levelNames}), not ${JSON.stringify(entry)}`,
      );
      continue;
    }
    levels[subsystem] = value;
  }
  let format: LogFormat | 'auto' = 'auto';
  const rawFormat = env.KINDGI_LOG_FORMAT?.trim().toLowerCase();
  if (rawFormat) {
    if (rawFormat === 'auto' || rawFormat === 'json' || rawFormat === 'pretty') format = rawFormat;
    else
      problems.push(
        `KINDGI_LOG_FORMAT must be \`auto\`, \`json\` or \`pretty\`, not ${JSON.stringify(env.KINDGI_LOG_FORMAT)}`,
      );
  }
  return { level, levels, format };
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
  const problems: string[] = [];
  const args = readArgs(argv, problems);
  const fd = args['--token-fd'];
  const fromFd = fd === undefined ? undefined : readTokenFd(fd, problems);
  const indexPath = resolve(cwd, args['--index'] ?? (env.KINDGI_PACK_INDEX || DEFAULT_PACK_INDEX_PATH));
  const config: PackServiceConfig = {
    indexPath,
    moduleRoot: resolve(cwd, args['--module-root'] ?? dirname(indexPath)),
    port: readPort(env, problems),
    token: readToken(env, fromFd, fd, problems),
    tokenSource: args['--token-fd'] === undefined ? 'env' : 'fd',
    maxConcurrency: readPositive(env, 'KINDGI_PACK_SERVICE_MAX_CONCURRENCY', DEFAULT_MAX_CONCURRENCY, problems),
    maxOutputBytes: readPositive(env, 'KINDGI_PACK_SERVICE_MAX_OUTPUT_BYTES', DEFAULT_MAX_OUTPUT_BYTES, problems),
    envCheck: readChoice(env, 'KINDGI_PACK_ENV_CHECK', ['strict', 'warn'], problems),
    envFilter: readChoice(env, 'KINDGI_PACK_ENV_FILTER', ['on', 'off'], problems),
    log: readLog(env, problems),
  };
  if (args['--bundle-map'] !== undefined) config.bundleMapPath = resolve(cwd, args['--bundle-map']);
  if (args['--host'] !== undefined) config.host = args['--host'];
  const metrics = readMetrics(env, fromFd, problems);
  if (metrics !== undefined) config.metrics = metrics;
  return problems.length > 0 ? err(problems) : ok(config);
}
