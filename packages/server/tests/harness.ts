import { type ChildProcess, spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The example pack, found from this file's place in the repository (never through ../shared). */
export const EXAMPLE_PACK_DIR = fileURLToPath(new URL('../../example-pack', import.meta.url));
/** The repository's root. */
export const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));
/** The built process entry these black-box tests spawn. */
export const SERVER_MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));

/** One JSON line the server wrote on stderr. */
export interface LogRecord {
  event: string;
  level: string;
  message: string;
  [field: string]: unknown;
}

/** What a development deployment writes to `<dataDir>/credentials.json`. */
export interface DevCredentialsFile {
  token: string;
  tenantId: string;
  s3: { accessKeyId: string; secretKey: string; bucket: string };
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A spawned `kindgi-server` with its parsed log. */
export interface ServerProcess {
  readonly child: ChildProcess;
  readonly records: LogRecord[];
  /** stderr lines that were not JSON (kept for failure messages). */
  readonly rawStderr: string[];
  stdout(): string;
  /** Resolves with the first record (already logged or still to come) that matches; rejects on exit. */
  waitFor(predicate: (record: LogRecord) => boolean, what: string): Promise<LogRecord>;
  readonly exited: Promise<Exit>;
  /** Every pack service pid this server spawned. */
  readonly spawnedPackPids: Set<number>;
  /** Spawned pack services the server has not reported exiting: to reap if the server itself is killed. */
  readonly packPids: Set<number>;
}

/** Everything the server wrote on stderr, for failure messages. */
export function stderrOf(server: ServerProcess): string {
  return [...server.records.map((record) => JSON.stringify(record)), ...server.rawStderr].join('\n');
}

/** A started server: its base URL from the `listening` record. */
export interface RunningServer extends ServerProcess {
  readonly url: string;
  readonly listening: LogRecord;
}

const live = new Set<ServerProcess>();

/**
 * A fresh temporary directory, removed by `cleanupTempDirs`. Run as root, the server starts pack services as
 * `nobody`, so the folder lets other users through (not list it): packs copied into it stay readable to them,
 * config files written 0600 (`writeConfig`) and the data directory (0700, the server's) do not.
 */
const tempDirs: string[] = [];
export function makeTempDir(label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `kindgi-server-${label}-`));
  chmodSync(dir, 0o711);
  tempDirs.push(dir);
  return dir;
}

export function cleanupTempDirs(): void {
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** The server's environment without any `KINDGI_SERVER_*` override from the test runner's. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('KINDGI_SERVER_') && value !== undefined) env[name] = value;
  }
  return { ...env, ...extra };
}

const SERVER_SRC = fileURLToPath(new URL('../src', import.meta.url));

/** These tests run the build: a missing or older-than-its-sources build would test the wrong code. */
function assertBuilt(): void {
  const build = '`pnpm --filter @kindgi/server... build`';
  if (!existsSync(SERVER_MAIN)) throw new Error(`${SERVER_MAIN} is missing: run ${build} before these tests`);
  const built = statSync(SERVER_MAIN).mtimeMs;
  // Every file below src/, folders included (src/start/ holds most of startServer).
  const stale = readdirSync(SERVER_SRC, { recursive: true, encoding: 'utf8' }).filter(
    (name) => statSync(join(SERVER_SRC, name)).isFile() && statSync(join(SERVER_SRC, name)).mtimeMs > built,
  );
  if (stale.length > 0) throw new Error(`${SERVER_MAIN} is older than src/${stale[0]}: run ${build} first`);
}

/** Spawns `node dist/main.js <args>` and parses its stderr as JSON lines. */
export function spawnServer(args: readonly string[], options: { cwd?: string; env?: Record<string, string> } = {}) {
  assertBuilt();
  const child = spawn(process.execPath, [SERVER_MAIN, ...args], {
    cwd: options.cwd ?? REPO_ROOT,
    env: cleanEnv(options.env ?? {}),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const records: LogRecord[] = [];
  const rawStderr: string[] = [];
  const spawnedPackPids = new Set<number>();
  const packPids = new Set<number>();
  const waiters: { predicate: (record: LogRecord) => boolean; resolve: (record: LogRecord) => void }[] = [];
  let out = '';
  let pending = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
  });
  const onLine = (line: string) => {
    let record: LogRecord;
    try {
      record = JSON.parse(line) as LogRecord;
    } catch {
      rawStderr.push(line);
      return;
    }
    records.push(record);
    if (typeof record.pid === 'number' && record.event === 'pack-child-spawned') {
      spawnedPackPids.add(record.pid);
      packPids.add(record.pid);
    }
    // Once reported gone, a pid may be reused by an unrelated process: never signal it again.
    if (typeof record.pid === 'number' && record.event === 'pack-child-exited') packPids.delete(record.pid);
    for (const waiter of [...waiters]) {
      if (waiter.predicate(record)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(record);
      }
    }
  };
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    pending += chunk;
    let newline = pending.indexOf('\n');
    while (newline >= 0) {
      onLine(pending.slice(0, newline));
      pending = pending.slice(newline + 1);
      newline = pending.indexOf('\n');
    }
  });
  const exited = new Promise<Exit>((resolve) => {
    child.once('close', (code, signal) => {
      if (pending !== '') onLine(pending);
      resolve({ code, signal });
    });
  });
  const server: ServerProcess = {
    child,
    records,
    rawStderr,
    spawnedPackPids,
    packPids,
    exited,
    stdout: () => out,
    waitFor(predicate, what) {
      const seen = records.find(predicate);
      if (seen) return Promise.resolve(seen);
      return new Promise<LogRecord>((resolve, reject) => {
        waiters.push({ predicate, resolve });
        void exited.then((exit) => {
          const tail = [...records.slice(-8).map((r) => JSON.stringify(r)), ...rawStderr.slice(-8)].join('\n');
          reject(new Error(`the server exited (${exit.code ?? exit.signal}) before logging ${what}:\n${tail}`));
        });
      });
    },
  };
  live.add(server);
  void exited.then(() => live.delete(server));
  return server;
}

/** Starts a server on a config file (or, with `null`, on its environment alone) and waits for `listening`. */
export async function startServer(
  configPath: string | null,
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<RunningServer> {
  const server = spawnServer(configPath === null ? [] : ['--config', configPath], options);
  const listening = await server.waitFor(
    (record) => record.event === 'listening' && typeof record.url === 'string',
    'listening',
  );
  return Object.assign(server, { url: listening.url as string, listening });
}

/** Sends SIGTERM and waits for the exit. */
export async function terminate(server: ServerProcess): Promise<Exit> {
  server.child.kill('SIGTERM');
  return server.exited;
}

function killPid(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** True while a process with this pid exists. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Kills the pack services a server spawned: a server killed with SIGKILL cannot stop them itself. */
export function reapPackServices(server: ServerProcess): void {
  for (const pid of server.packPids) killPid(pid);
}

/**
 * Stops every server a test started: SIGTERM, then SIGKILL (and its pack services, which a killed
 * server cannot stop) when it has not exited after `graceMs`.
 */
export async function stopAllServers(graceMs = 15_000): Promise<void> {
  await Promise.all(
    [...live].map(async (server) => {
      server.child.kill('SIGTERM');
      const timer = setTimeout(() => server.child.kill('SIGKILL'), graceMs);
      await server.exited;
      clearTimeout(timer);
      reapPackServices(server);
    }),
  );
}

/** Writes a config for the example pack with an absolute pack dir, port 0 and the given dataDir. */
export function writeConfig(dir: string, dataDir: string, extra: Record<string, unknown> = {}): string {
  const path = join(dir, 'kindgi.server.json');
  const config = {
    host: '127.0.0.1',
    port: 0,
    dataDir,
    docs: true,
    packs: [{ dir: EXAMPLE_PACK_DIR, env: { ACME_API_BASE: 'https://cases.acme.invalid' } }],
    // Generous, so a drained call never races the grace period on a loaded machine.
    drainMs: 30_000,
    ...extra,
  };
  mkdirSync(dir, { recursive: true });
  writeFileSync(path, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  return path;
}

export function readCredentials(dataDir: string): DevCredentialsFile {
  return JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8')) as DevCredentialsFile;
}
