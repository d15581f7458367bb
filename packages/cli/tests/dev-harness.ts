import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CLI_MAIN, REPO_ROOT } from './helpers.js';

export { CLI_MAIN, REPO_ROOT };
export const EXAMPLE_PACK_DIR = join(REPO_ROOT, 'packages', 'example-pack');

/** One JSON line `kindgi dev --json` printed. */
export type DevLine = { event: string } & Record<string, unknown>;

/** A `kindgi dev --json` process in its own process group, its output collected. */
export interface DevProcess {
  readonly child: ChildProcess;
  readonly lines: DevLine[];
  stderr(): string;
  /** The first line after `from` (an index into `lines`) matching, else throws after `timeoutMs`. */
  waitFor(match: (line: DevLine) => boolean, what: string, from?: number, timeoutMs?: number): Promise<DevLine>;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
}

const started: DevProcess[] = [];
const dirs: string[] = [];

export function makeTempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `kindgi-${prefix}-`));
  dirs.push(dir);
  return dir;
}

/** Starts `kindgi dev --json --port 0` on `packDir`. */
export function startDev(packDir: string, env: NodeJS.ProcessEnv = process.env): DevProcess {
  const child = spawn(process.execPath, [CLI_MAIN, 'dev', '--pack-dir', packDir, '--port', '0', '--json'], {
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: DevLine[] = [];
  let err = '';
  let pending = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    pending += chunk;
    const parts = pending.split('\n');
    pending = parts.pop() ?? '';
    for (const part of parts) if (part.trim() !== '') lines.push(JSON.parse(part) as DevLine);
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const dev: DevProcess = {
    child,
    lines,
    stderr: () => err,
    exited,
    async waitFor(match, what, from = 0, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const found = lines.slice(from).find(match);
        if (found) return found;
        if (child.exitCode !== null) break;
        await sleep(50);
      }
      throw new Error(`kindgi dev: no ${what}; lines: ${JSON.stringify(lines)}; stderr: ${err}`);
    },
  };
  started.push(dev);
  return dev;
}

/** True while any process of the group `pgid` lives. */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits until the process group is gone (false after `timeoutMs`). */
export async function groupGone(pgid: number, timeoutMs = 15_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!groupAlive(pgid)) return true;
    await sleep(100);
  }
  return false;
}

/**
 * The processes (pid and command line) whose command line names `dir`: a pack service (its `--module-root`)
 * or a build the dev server started for a pack in `dir`, wherever its process group is. Linux only ([] elsewhere).
 */
export function processesMentioning(dir: string): string[] {
  if (!existsSync('/proc')) return [];
  const found: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (cmdline.includes(dir)) found.push(`${entry}: ${cmdline.trim()}`);
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/** Kills every process group a test started (and left), and removes the temp folders. */
export async function cleanup(): Promise<void> {
  for (const dev of started.splice(0)) {
    const pgid = dev.child.pid;
    if (pgid !== undefined && groupAlive(pgid)) {
      try {
        process.kill(-pgid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** POSTs a tool call with the dev token; answers the status and parsed body. */
export async function invoke(
  url: string,
  token: string,
  toolId: string,
  input: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${url}/v1/tools/${toolId}/invoke`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ input }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Calls until `accept` holds for an answer (a reload lands within a few seconds), else the last answer. */
export async function invokeUntil(
  call: () => Promise<{ status: number; body: Record<string, unknown> }>,
  accept: (answer: { status: number; body: Record<string, unknown> }) => boolean,
  timeoutMs = 30_000,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const deadline = Date.now() + timeoutMs;
  let last = await call();
  while (!accept(last) && Date.now() < deadline) {
    await sleep(100);
    last = await call();
  }
  return last;
}

export function readDevFile(packDir: string): { url: string; token: string; pid: number } {
  return JSON.parse(readFileSync(join(packDir, '.kindgi', 'dev.json'), 'utf8')) as {
    url: string;
    token: string;
    pid: number;
  };
}
