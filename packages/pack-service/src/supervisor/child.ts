import { type ChildProcess, spawn } from 'node:child_process';
import { err, ok, type Result } from '@kindgi/protocol';
import { Pool } from 'undici';
import { createLineReader } from './line-reader.js';
import { classifyServiceLine, listeningPort, recordProblems, type ServiceRecord } from './service-event.js';
import type { SupervisorStartError } from './types.js';

/** How a child process ended. */
export interface ChildExit {
  exitCode: number | null;
  signal: string | null;
}

/** A pack service child process: its boot outcome, its exit, and (once listening) a keep-alive pool. */
export interface Child {
  readonly pid: number;
  readonly indexPath: string;
  /** Resolves once the child listens (ok) or fails to (err); the child is killed on a boot timeout. */
  readonly booted: Promise<Result<{ port: number }, SupervisorStartError>>;
  /** Resolves when the process has exited and its output has been read. */
  readonly exited: Promise<ChildExit>;
  readonly hasExited: boolean;
  /** Set once listening: the child's base URL and the pool the front forwards through. */
  url?: string;
  pool?: Pool;
  /** A spare's go: writes its token (the boot timeout runs from here). A no-op for any other child. */
  release?(): void;
  kill(signal: NodeJS.Signals): void;
}

export interface SpawnChildOptions {
  argv: readonly string[];
  env: Record<string, string>;
  cwd?: string;
  /** The account to run as (libuv drops supplementary groups with it). */
  user?: { uid: number; gid: number };
  indexPath: string;
  /** Written to the child's descriptor 3 (then closed), for a command started with `--token-fd 3`. */
  tokenOnFd3?: string;
  /**
   * A spare, started ahead of need: its token (descriptor 3) is written only by `release()`. A pack service
   * reads the token first thing after loading its code, so until then it waits, node and its modules
   * loaded, and reads the index only once released.
   */
  spare?: boolean;
  bootTimeoutMs: number;
  onRecord: (record: ServiceRecord) => void;
  onOutput: (line: string, stream: 'stdout' | 'stderr', pid: number) => void;
}

/** Lines of plain output kept for a boot failure's report. */
const OUTPUT_TAIL = 20;
/** After `exit`, how long to wait for the pipes to finish (a grandchild may hold them open). */
const PIPE_FLUSH_MS = 1_000;

function startError(code: SupervisorStartError['code'], message: string, extra: Partial<SupervisorStartError> = {}) {
  return err<SupervisorStartError>({
    code,
    message,
    problems: extra.problems ?? [],
    exitCode: extra.exitCode ?? null,
    signal: extra.signal ?? null,
    output: extra.output ?? [],
  });
}

function watchStream(proc: ChildProcess, stream: 'stdout' | 'stderr', onLine: (line: string) => void): Promise<void> {
  const source = proc[stream];
  if (!source) return Promise.resolve();
  const reader = createLineReader(onLine);
  source.on('data', (chunk: Buffer) => reader.push(chunk));
  // A broken pipe ends the stream (its 'close' still comes); it must not crash the supervisor.
  source.on('error', () => undefined);
  return new Promise((resolve) => {
    source.once('close', () => {
      reader.end();
      resolve();
    });
  });
}

/** Spawns one pack service process and follows its stderr records until it listens or exits. */
export function spawnChild(options: SpawnChildOptions): Child {
  const [program, ...args] = options.argv;
  const proc = spawn(program as string, args, {
    cwd: options.cwd,
    env: options.env,
    ...(options.user ? { uid: options.user.uid, gid: options.user.gid } : {}),
    // stdin is a pipe the supervisor never writes to: it closes when the supervisor dies (even by
    // SIGKILL), which tells a pack service that watches it (ours does) to drain and exit, not linger.
    stdio: options.tokenOnFd3 === undefined ? ['pipe', 'pipe', 'pipe'] : ['pipe', 'pipe', 'pipe', 'pipe'],
  });
  // Nothing is written to it; a child that closes its end must not raise an unhandled EPIPE here.
  proc.stdin?.on('error', () => {});
  const tokenPipe = proc.stdio[3] as (NodeJS.WritableStream & { on(event: 'error', f: () => void): void }) | null;
  tokenPipe?.on('error', () => {});
  // The token travels on a pipe, not in the environment, where /proc/<pid>/environ would show it.
  const writeToken = () => {
    if (options.tokenOnFd3 !== undefined) tokenPipe?.end(options.tokenOnFd3);
  };
  const pid = proc.pid ?? -1;
  const problems: string[] = [];
  const output: string[] = [];
  let spawnError: Error | undefined;
  let hasExited = false;
  let resolveBoot!: (outcome: Result<{ port: number }, SupervisorStartError>) => void;
  let bootSettled = false;
  const booted = new Promise<Result<{ port: number }, SupervisorStartError>>((resolve) => {
    resolveBoot = (outcome) => {
      if (bootSettled) return;
      bootSettled = true;
      resolve(outcome);
    };
  });

  const remember = (line: string): void => {
    output.push(line.length > 2_000 ? `${line.slice(0, 2_000)}…` : line);
    if (output.length > OUTPUT_TAIL) output.shift();
  };
  const stderrDone = watchStream(proc, 'stderr', (line) => {
    const classified = classifyServiceLine(line);
    if (!classified) {
      remember(line);
      options.onOutput(line, 'stderr', pid);
      return;
    }
    if (classified.kind === 'boot-failed' || classified.kind === 'config-invalid') {
      problems.push(...recordProblems(classified.record));
    }
    if (classified.kind === 'listening' && !bootSettled) {
      const port = listeningPort(classified.record);
      if (port !== undefined) resolveBoot(ok({ port }));
    }
    options.onRecord({ ...classified, pid });
  });
  const stdoutDone = watchStream(proc, 'stdout', (line) => options.onOutput(line, 'stdout', pid));

  const exited = new Promise<ChildExit>((resolve) => {
    let settled = false;
    const finish = (exit: ChildExit): void => {
      if (settled) return;
      settled = true;
      hasExited = true;
      resolve(exit);
    };
    // `on`, not `once`: a later error (a failed kill) must not become an unhandled 'error' event.
    proc.on('error', (error) => {
      spawnError ??= error;
      // A process that never started emits no `exit`.
      if (proc.pid === undefined) finish({ exitCode: null, signal: null });
    });
    proc.once('exit', (exitCode, signal) => {
      const flushed = Promise.all([stderrDone, stdoutDone]);
      const timer = setTimeout(() => finish({ exitCode, signal }), PIPE_FLUSH_MS);
      void flushed.then(() => {
        clearTimeout(timer);
        finish({ exitCode, signal });
      });
    });
  });

  let bootTimer: NodeJS.Timeout | undefined;
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    writeToken();
    if (bootSettled) return;
    bootTimer = setTimeout(() => {
      resolveBoot(
        startError('boot-timeout', `The pack service did not listen within ${options.bootTimeoutMs} ms`, {
          problems: [...problems],
          output: [...output],
        }),
      );
      proc.kill('SIGKILL');
    }, options.bootTimeoutMs);
  };
  if (!options.spare) release();
  void booted.then(() => clearTimeout(bootTimer));

  void exited.then(({ exitCode, signal }) => {
    if (spawnError && proc.pid === undefined) {
      resolveBoot(startError('spawn-failed', `Cannot start ${String(program)}: ${spawnError.message}`));
      return;
    }
    const how = signal ? `was killed by ${signal}` : `exited with code ${exitCode}`;
    const first = problems[0] ?? output[output.length - 1];
    resolveBoot(
      startError('boot-failed', `The pack service ${how} before listening${first ? `: ${first}` : ''}`, {
        problems: [...problems],
        exitCode,
        signal,
        output: [...output],
      }),
    );
  });

  return {
    pid,
    indexPath: options.indexPath,
    booted,
    exited,
    get hasExited() {
      return hasExited;
    },
    release,
    kill(signal) {
      if (!hasExited) proc.kill(signal);
    },
  };
}

/**
 * The keep-alive pool the front uses for one child. Idle sockets close after a second, well before any
 * common server idle timeout, so a call is never written to a socket the child is closing (a POST is
 * not retried, and that would read as a 502). Loopback reconnects cost next to nothing.
 */
export function childPool(url: string): Pool {
  return new Pool(url, { keepAliveTimeout: 1_000, keepAliveMaxTimeout: 2_000 });
}
