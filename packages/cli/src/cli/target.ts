import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { err, messageOf, ok, type Result } from '@kindgi/protocol';
import type { ApiTarget } from './api-client.js';
import type { CliFailure } from './output.js';

/** Where a command's API requests go, and where that came from (for messages). */
export interface ResolvedTarget extends ApiTarget {
  readonly source: 'dev' | 'server';
}

/** What `kindgi dev` writes to `<pack-dir>/.kindgi/dev.json` while it runs (mode 0600). */
export interface DevSession {
  readonly url: string;
  readonly token: string;
  readonly pid: number;
}

const MAX_DEV_FILE_BYTES = 64 * 1024;
const MAX_TOKEN_CHARS = 4096;

/** `<pack-dir>/.kindgi/dev.json`. */
export function devSessionPath(packDir: string): string {
  return join(packDir, '.kindgi', 'dev.json');
}

/** True for an absolute http: or https: URL. */
export function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (cause) {
    // EPERM: it exists, as another user's process.
    return (cause as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const NOT_RUNNING_HINT = 'start `kindgi dev` in the pack, or pass --server URL with KINDGI_TOKEN set';

/** Reads and checks `kindgi dev`'s session file; a missing file or a dead pid is `dev-not-running`. */
export async function readDevSession(packDir: string): Promise<Result<DevSession, CliFailure>> {
  const path = devSessionPath(packDir);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'ENOENT') {
      return err({
        code: 'dev-not-running',
        message: `no kindgi dev is running for ${packDir} (no ${path}): ${NOT_RUNNING_HINT}`,
      });
    }
    return err({ code: 'dev-file-unreadable', message: `cannot read ${path}: ${messageOf(cause)}` });
  }
  let session: Partial<DevSession>;
  try {
    if (text.length > MAX_DEV_FILE_BYTES) throw new Error('too large');
    session = JSON.parse(text) as Partial<DevSession>;
  } catch {
    return err({ code: 'dev-file-invalid', message: `${path} is not the JSON kindgi dev writes` });
  }
  const { url, token, pid } = session;
  if (
    typeof url !== 'string' ||
    !isHttpUrl(url) ||
    typeof token !== 'string' ||
    token === '' ||
    !Number.isInteger(pid)
  ) {
    return err({ code: 'dev-file-invalid', message: `${path} lacks a url, token or pid` });
  }
  if (!isRunning(pid as number)) {
    return err({
      code: 'dev-not-running',
      message: `kindgi dev (pid ${pid}) is no longer running (stale ${path}): ${NOT_RUNNING_HINT}`,
    });
  }
  return ok({ url, token, pid: pid as number });
}

/**
 * The API a command talks to: `--server URL` with the token from `KINDGI_TOKEN`, else the `kindgi dev`
 * running for the pack (its `.kindgi/dev.json`).
 */
export async function resolveTarget(options: {
  packDir: string;
  server: string | undefined;
  env: NodeJS.ProcessEnv;
}): Promise<Result<ResolvedTarget, CliFailure>> {
  if (options.server === undefined) {
    const session = await readDevSession(options.packDir);
    if (session.kind === 'err') return session;
    return ok({ url: session.value.url, token: session.value.token, source: 'dev' });
  }
  if (!isHttpUrl(options.server)) {
    return err({ code: 'server-invalid', message: `--server must be an http(s) URL, not "${options.server}"` });
  }
  const token = options.env.KINDGI_TOKEN;
  if (token === undefined || token === '') {
    return err({
      code: 'token-missing',
      message: `--server needs a token: set KINDGI_TOKEN to a bearer token for ${options.server}`,
    });
  }
  if (token.length > MAX_TOKEN_CHARS || /\s/.test(token)) {
    return err({
      code: 'token-invalid',
      message: `KINDGI_TOKEN is not a bearer token (whitespace, or over ${MAX_TOKEN_CHARS} characters)`,
    });
  }
  return ok({ url: options.server, token, source: 'server' });
}
