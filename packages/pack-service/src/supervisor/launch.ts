import type { Child } from './child.js';
import type { PackServiceSupervisorOptions } from './types.js';

/** How one child is started: its argv, its environment, and the token for descriptor 3 (if that way). */
export interface ChildLaunch {
  argv: string[];
  env: Record<string, string>;
  tokenOnFd3?: string;
}

/**
 * The child's launch for `indexPath`: the command's argv plus `--index`, `--module-root`, `--host` (and
 * `--token-fd 3` unless `tokenVia` is `env`); the environment is exactly `env()` (unset values left out)
 * plus `PORT=0`, JSON logs and, with `tokenVia: 'env'`, the token. With the default `fd`, no environment
 * block ever holds the token, not even a copy `env()` passed on.
 */
export function childLaunch(
  options: Pick<PackServiceSupervisorOptions, 'env' | 'moduleRoot' | 'tokenVia'>,
  command: readonly string[],
  indexPath: string,
  token: string,
): ChildLaunch {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.env())) if (value !== undefined) env[name] = value;
  const viaFd = (options.tokenVia ?? 'fd') === 'fd';
  if (viaFd) delete env.KINDGI_PACK_SERVICE_TOKEN;
  else env.KINDGI_PACK_SERVICE_TOKEN = token;
  env.PORT = '0';
  env.KINDGI_LOG_FORMAT = 'json';
  const argv = [...command, '--index', indexPath, '--module-root', options.moduleRoot, '--host', '127.0.0.1'];
  if (!viaFd) return { argv, env };
  return { argv: [...argv, '--token-fd', '3'], env, tokenOnFd3: token };
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/**
 * Retires a replaced or stopped child: lets the calls already sent to it finish (its pool's close waits
 * for them, up to `drainMs`), then SIGTERM, then SIGKILL after `killAfterMs`, and releases its pool.
 */
export async function retireChild(child: Child, drainMs: number, killAfterMs: number): Promise<void> {
  await Promise.race([child.pool?.close(), child.exited, delay(drainMs)]);
  child.kill('SIGTERM');
  await Promise.race([child.exited, delay(killAfterMs)]);
  child.kill('SIGKILL');
  await child.exited;
  await child.pool?.destroy();
}
