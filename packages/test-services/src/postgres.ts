import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A throwaway PostgreSQL server for tests. */
export interface TestPostgres {
  /** `postgres://postgres:<password>@127.0.0.1:<port>/postgres`. */
  readonly url: string;
  readonly port: number;
  readonly password: string;
  /** A URL for database `name` on this server, creating the database first (names: `[a-z0-9_]+`). */
  createDatabase(name: string): Promise<string>;
  /** `pg_dump` of database `name` (plain SQL, data included): every byte it holds, to search. */
  dump(name: string): Buffer;
  /** Stops the server (fast shutdown), keeping its data; `start()` brings it back on the same port. */
  halt(): Promise<void>;
  /** Starts a halted server again. */
  start(): Promise<void>;
  /** `halt()` then `start()`. */
  restart(): Promise<void>;
  /** Stops the server and deletes its data folder. Safe to call twice. */
  stop(): Promise<void>;
}

/** Options of {@link startPostgres}. */
export interface StartPostgresOptions {
  /** Folder of `initdb` and `postgres` (default `KINDGI_TEST_PG_BIN` or `/usr/lib/postgresql/15/bin`). */
  binDir?: string;
  /** How long start-up may take before it fails (default 60,000 ms). */
  startTimeoutMs?: number;
}

const READY_LINE = 'database system is ready to accept connections';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

const isRoot = (): boolean => process.getuid?.() === 0;

/** Runs a PostgreSQL binary as `postgres` when we are root (PostgreSQL refuses to run as root). */
function asPostgres(command: string, args: string[]): [string, string[]] {
  return isRoot() ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

function postmasterPid(dataDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Starts a real PostgreSQL server in a temporary folder on a free 127.0.0.1 port, with password
 * authentication and durability off (fsync, synchronous commit: tests never need crash safety of the
 * database itself). When the process runs as root, `initdb` and `postgres` run as the `postgres` user in a
 * folder chowned to it. Importable without vitest; the caller stops it (`stop()`), and a process exit stops
 * it too.
 */
export async function startPostgres(options: StartPostgresOptions = {}): Promise<TestPostgres> {
  const binDir = options.binDir ?? process.env.KINDGI_TEST_PG_BIN ?? '/usr/lib/postgresql/15/bin';
  const startTimeoutMs = options.startTimeoutMs ?? 60_000;
  const root = mkdtempSync(join(tmpdir(), 'kindgi-pg-'));
  const dataDir = join(root, 'data');
  const socketDir = join(root, 'socket');
  const password = randomBytes(12).toString('hex');
  const owner = isRoot() ? Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim()) : undefined;
  const ownerGroup = isRoot() ? Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim()) : 0;
  execFileSync('mkdir', ['-p', socketDir]);
  writeFileSync(join(root, 'pwfile'), `${password}\n`);
  if (owner !== undefined) {
    for (const path of [root, socketDir, join(root, 'pwfile')]) chownSync(path, owner, ownerGroup);
  }
  const [initCmd, initArgs] = asPostgres(join(binDir, 'initdb'), [
    '-D',
    dataDir,
    '-U',
    'postgres',
    '--auth=scram-sha-256',
    `--pwfile=${join(root, 'pwfile')}`,
    '--encoding=UTF8',
    '--no-locale',
    '--no-sync',
  ]);
  execFileSync(initCmd, initArgs, { stdio: 'pipe' });
  const port = await freePort();
  let child: ChildProcess | undefined;
  let stopped = false;

  const launch = async (): Promise<void> => {
    const [cmd, args] = asPostgres(join(binDir, 'postgres'), [
      '-D',
      dataDir,
      '-p',
      String(port),
      '-k',
      socketDir,
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
      '-c',
      'max_connections=200',
    ]);
    const proc = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    child = proc;
    await new Promise<void>((resolve, reject) => {
      let log = '';
      const timer = setTimeout(
        () => fail(new Error(`postgres did not start in ${startTimeoutMs} ms:\n${log}`)),
        startTimeoutMs,
      );
      const fail = (error: Error): void => {
        clearTimeout(timer);
        reject(error);
      };
      proc.once('error', fail);
      proc.once('exit', (code) => fail(new Error(`postgres exited with ${code} while starting:\n${log}`)));
      proc.stderr?.setEncoding('utf8');
      proc.stderr?.on('data', (chunk: string) => {
        if (log.length < 64_000) log += chunk;
        if (log.includes(READY_LINE)) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    // Keeps draining the log so the server never blocks on a full pipe.
    proc.stderr?.resume();
  };

  const halt = async (): Promise<void> => {
    const proc = child;
    child = undefined;
    if (proc === undefined || proc.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    const pid = postmasterPid(dataDir);
    // SIGINT to the postmaster is PostgreSQL's fast shutdown; runuser need not forward it.
    if (pid !== undefined) process.kill(pid, 'SIGINT');
    else proc.kill('SIGINT');
    await exited;
  };

  const onExit = (): void => {
    const pid = postmasterPid(dataDir);
    if (pid !== undefined && child !== undefined) {
      try {
        process.kill(pid, 'SIGQUIT');
      } catch {
        // Already gone.
      }
    }
  };
  process.once('exit', onExit);

  await launch();
  const url = `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;
  return {
    url,
    port,
    password,
    async createDatabase(name) {
      if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`invalid database name ${name}`);
      execFileSync(join(binDir, 'createdb'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', name], {
        env: { ...process.env, PGPASSWORD: password },
        stdio: 'pipe',
      });
      return `postgres://postgres:${password}@127.0.0.1:${port}/${name}`;
    },
    dump(name) {
      if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`invalid database name ${name}`);
      return execFileSync(join(binDir, 'pg_dump'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', name], {
        env: { ...process.env, PGPASSWORD: password },
        stdio: ['ignore', 'pipe', 'pipe'],
        maxBuffer: 256 * 1024 * 1024,
      });
    },
    halt,
    async start() {
      if (stopped) throw new Error('this PostgreSQL server was stopped');
      if (child === undefined) await launch();
    },
    async restart() {
      await halt();
      await launch();
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await halt();
      process.removeListener('exit', onExit);
      rmSync(root, { recursive: true, force: true });
    },
  };
}
