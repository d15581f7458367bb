import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import type { PackIndex } from '@kindgi/protocol';
import type { PackLog } from '../log/log.js';
import { readPackServiceArgv } from './argv.js';
import { METRICS_TOKEN_ENV_VAR, type PackServiceConfig } from './config.js';
import { undeclaredPackEnv } from './pack-env.js';
import { onStdinPipeClosed } from './parent-watch.js';

/** The environment variable the token may come in; it never reaches pack code's environment block. */
export const TOKEN_ENV_VAR = 'KINDGI_PACK_SERVICE_TOKEN';
/** The descriptor the process entry hands the token to its isolated child on (`--token-fd 3`). */
const CHILD_TOKEN_FD = 3;
const RELAYED_SIGNALS: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP'];

/** The environment pack code may see, and what had to go to get there (names only). */
export interface IsolatedEnv {
  env: Record<string, string>;
  /** Undeclared names the filter drops (empty with `KINDGI_PACK_ENV_FILTER=off`). */
  dropped: string[];
  /** True when this process's environment block holds anything pack code must not see. */
  mustReExec: boolean;
}

/**
 * The environment for pack code: every variable but the token, and (filter on) but the undeclared
 * ones. Deleting from `process.env` does not change what `/proc/self/environ` shows, so whenever
 * something must go, the service runs in a new process started with exactly this environment.
 */
export function isolatedEnv(
  index: PackIndex,
  env: Readonly<Record<string, string | undefined>>,
  filter: PackServiceConfig['envFilter'],
): IsolatedEnv {
  const dropped = filter === 'on' ? undeclaredPackEnv(index.env, env) : [];
  const gone = new Set([...dropped, TOKEN_ENV_VAR, METRICS_TOKEN_ENV_VAR]);
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined && !gone.has(name)) kept[name] = value;
  const tokens = env[TOKEN_ENV_VAR] !== undefined || env[METRICS_TOKEN_ENV_VAR] !== undefined;
  return { env: kept, dropped, mustReExec: dropped.length > 0 || tokens };
}

/** Logs the names the env filter dropped (never their values), once, before pack code loads. */
export function reportDropped(log: PackLog, dropped: readonly string[]): void {
  if (dropped.length === 0) return;
  log.record(
    'env-dropped',
    'warn',
    `Dropped ${dropped.length} variables the pack doesn't declare: ${dropped.join(', ')} (declare them in the pack's env, or set KINDGI_PACK_ENV_FILTER=off)`,
    { names: dropped },
  );
}

/**
 * argv for the child: the same flag values (read as the settings read them, so already valid), the token
 * moved to the child's descriptor.
 */
function childArgs(argv: readonly string[]): string[] {
  const { values } = readPackServiceArgv(argv);
  const args = Object.entries(values)
    .filter(([name]) => name !== 'token-fd')
    .map(([name, value]) => `--${name}=${value}`);
  return [...args, '--token-fd', String(CHILD_TOKEN_FD)];
}

/**
 * Runs this same process entry again as a child whose environment is `env`, the token on descriptor 3
 * (the metrics token, when set, on its second line).
 * Its stdout and stderr are this process's (the `listening` record reaches the supervisor as is);
 * SIGTERM, SIGINT and SIGHUP are passed on, so a drain works as before; the child's stdin is a pipe from
 * this process, so it drains and exits if this one dies, even by SIGKILL; and when this process's own
 * stdin pipe closes (its supervisor is gone) the child is told to drain. Resolves with the child's exit
 * code (128 + the signal number when a signal ended it).
 */
export function runIsolated(
  argv: readonly string[],
  env: Record<string, string>,
  token: string,
  log: PackLog,
  metricsToken?: string,
): Promise<number> {
  const entry = process.argv[1] as string;
  const child = spawn(process.execPath, [...process.execArgv, entry, ...childArgs(argv)], {
    env,
    stdio: ['pipe', 'inherit', 'inherit', 'pipe'],
  });
  child.stdin?.on('error', () => {});
  const tokenPipe = child.stdio[CHILD_TOKEN_FD] as NodeJS.WritableStream & { on(e: 'error', f: () => void): void };
  tokenPipe.on('error', () => {});
  tokenPipe.end(metricsToken ? `${token}\n${metricsToken}` : token);
  const relay = (signal: NodeJS.Signals) => () => {
    child.kill(signal);
  };
  const handlers = RELAYED_SIGNALS.map((signal) => [signal, relay(signal)] as const);
  for (const [signal, handler] of handlers) process.on(signal, handler);
  onStdinPipeClosed(() => child.kill('SIGTERM'));
  return new Promise((resolve) => {
    child.once('error', (error) => {
      log.lifecycle('boot-failed', 'error', `Cannot start the isolated pack service: ${error.message}`, {
        problems: [error.message],
      });
      resolve(1);
    });
    child.once('exit', (code, signal) => {
      for (const [name, handler] of handlers) process.off(name, handler);
      resolve(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0));
    });
  });
}
