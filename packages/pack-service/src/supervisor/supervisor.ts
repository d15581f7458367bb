import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { err, ok, type Result } from '@kindgi/protocol';
import type { RelayTarget } from '../relay/relay.js';
import { type Child, childPool, spawnChild } from './child.js';
import { createFrontHandler } from './front.js';
import { createSessionToken, isValidSessionToken } from './token.js';
import type {
  PackServiceSupervisorOptions,
  SupervisorEvent,
  SupervisorFront,
  SupervisorStartError,
  SupervisorStarted,
} from './types.js';

/** A pack service behind a stable front: one URL and token while children come and go. */
export interface PackServiceSupervisor {
  /** Opens the front (idempotent). Rejects with a `SupervisorError` when the address can't be bound. */
  listen(): Promise<SupervisorFront>;
  /** Boots a child on `indexPath` and switches calls to it once it listens; never throws. */
  start(indexPath: string): Promise<Result<SupervisorStarted, SupervisorStartError>>;
  /** Stops every child (the front then answers 503) and any pending restart. */
  stop(): Promise<void>;
  /** `stop()`, then closes the front. */
  close(): Promise<void>;
  /** The session token (fixed for the supervisor's life). */
  readonly token: string;
  /** The front's URL once listening. */
  readonly url: string | undefined;
  /** The serving child's process id. */
  readonly servingPid: number | undefined;
}

/** A misconfiguration or a front that can't listen. */
export class SupervisorError extends Error {
  readonly code: 'supervisor-config-invalid' | 'listen-failed';
  constructor(code: SupervisorError['code'], message: string) {
    super(message);
    this.name = 'SupervisorError';
    this.code = code;
  }
}

/** A child that served this long before crashing resets the restart backoff. */
const STABLE_MS = 10_000;

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/**
 * Creates a supervisor for local development. Throws a `SupervisorError` for an invalid token or command
 * (programming errors); everything at run time is reported through results and events.
 */
export function createPackServiceSupervisor(options: PackServiceSupervisorOptions): PackServiceSupervisor {
  const token = options.token ?? createSessionToken();
  if (!isValidSessionToken(token)) {
    throw new SupervisorError('supervisor-config-invalid', 'The session token must match ^[A-Za-z0-9_-]{32,}$');
  }
  if (Array.isArray(options.command) && options.command.length === 0) {
    throw new SupervisorError('supervisor-config-invalid', '`command` must name a program');
  }
  const backoff = { initialMs: 200, maxMs: 10_000, factor: 2, ...options.restartBackoff };
  const emit = (event: SupervisorEvent): void => options.onEvent?.(event);

  let server: Server | undefined;
  let url: string | undefined;
  let current: Child | undefined;
  const booting = new Set<Child>();
  const retiring = new Set<Promise<void>>();
  // Bumped by stop(): a boot that began before it must not start serving after it.
  let epoch = 0;
  let restartAttempt = 0;
  let restartTimer: NodeJS.Timeout | undefined;
  let queue: Promise<unknown> = Promise.resolve();

  const serialize = <T>(task: () => Promise<T>): Promise<T> => {
    const run = queue.then(task, task);
    queue = run.catch(() => undefined);
    return run;
  };

  const target = (): RelayTarget | undefined =>
    current?.url && current.pool ? { url: current.url, token, dispatcher: current.pool } : undefined;

  const retire = (child: Child): Promise<void> => {
    emit({ kind: 'child-retiring', pid: child.pid });
    const done = (async () => {
      // The pool's close waits for the calls already sent to this child; new ones go to its successor.
      await Promise.race([child.pool?.close(), child.exited, delay(options.drainMs ?? 30_000)]);
      child.kill('SIGTERM');
      await Promise.race([child.exited, delay(options.killAfterMs ?? 10_000)]);
      child.kill('SIGKILL');
      await child.exited;
      await child.pool?.destroy();
    })();
    retiring.add(done);
    void done.finally(() => retiring.delete(done));
    return done;
  };

  // A crashed child restarts on the code it was running (a newer start() cancels the restart).
  const scheduleRestart = (indexPath: string): void => {
    if (restartTimer) return;
    restartAttempt++;
    const delayMs = Math.min(backoff.maxMs, backoff.initialMs * backoff.factor ** (restartAttempt - 1));
    emit({ kind: 'restart-scheduled', attempt: restartAttempt, delayMs });
    const scheduledEpoch = epoch;
    restartTimer = setTimeout(() => {
      restartTimer = undefined;
      void serialize(async () => {
        // A start() or stop() since the crash already decided what serves.
        if (current || epoch !== scheduledEpoch) return;
        const outcome = await boot(indexPath, 'restart', scheduledEpoch);
        if (outcome.kind === 'err' && !current && epoch === scheduledEpoch) scheduleRestart(indexPath);
      });
    }, delayMs);
  };

  const watchServing = (child: Child): void => {
    void child.exited.then(({ exitCode, signal }) => {
      const expected = child !== current;
      emit({ kind: 'child-exited', pid: child.pid, exitCode, signal, expected });
      if (expected) return;
      current = undefined;
      if (child.servingSince !== undefined && Date.now() - child.servingSince >= STABLE_MS) restartAttempt = 0;
      void child.pool?.destroy();
      scheduleRestart(child.indexPath);
    });
  };

  // `bootEpoch` is the epoch when the start was asked for: a stop() in between cancels it.
  const boot = async (
    indexPath: string,
    reason: 'start' | 'restart',
    bootEpoch: number,
  ): Promise<Result<SupervisorStarted, SupervisorStartError>> => {
    const failure = (code: SupervisorStartError['code'], message: string) =>
      err<SupervisorStartError>({ code, message, problems: [], exitCode: null, signal: null, output: [] });
    if (epoch !== bootEpoch) return failure('stopped', 'The supervisor was stopped before the pack service started');
    let argv: readonly string[];
    try {
      argv = typeof options.command === 'function' ? await options.command() : options.command;
    } catch (thrown) {
      return failure('command-invalid', `The command function threw: ${String(thrown)}`);
    }
    if (!Array.isArray(argv) || argv.length === 0 || argv.some((part) => typeof part !== 'string')) {
      return failure('command-invalid', '`command` must give a non-empty list of strings');
    }
    if (epoch !== bootEpoch) return failure('stopped', 'The supervisor was stopped before the pack service started');
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(options.env())) if (value !== undefined) env[name] = value;
    env.KINDGI_PACK_SERVICE_TOKEN = token;
    env.PORT = '0';
    env.KINDGI_LOG_FORMAT = 'json';
    const child = spawnChild({
      argv: [...argv, '--index', indexPath, '--module-root', options.moduleRoot, '--host', '127.0.0.1'],
      env,
      cwd: options.cwd,
      indexPath,
      bootTimeoutMs: options.bootTimeoutMs ?? 60_000,
      onRecord: (record) => options.onLog?.(record),
      onOutput: (line, stream, pid) => options.onOutput?.(line, stream, pid),
    });
    booting.add(child);
    emit({ kind: 'child-spawned', pid: child.pid, indexPath, reason });
    const outcome = await child.booted;
    booting.delete(child);
    if (outcome.kind === 'err' && epoch !== bootEpoch) {
      return failure('stopped', 'The supervisor was stopped while the pack service booted');
    }
    if (outcome.kind === 'err') {
      const { problems, exitCode, signal } = outcome.error;
      emit({ kind: 'boot-failed', pid: child.pid, problems, exitCode, signal });
      child.kill('SIGKILL');
      return outcome;
    }
    if (epoch !== bootEpoch) {
      child.kill('SIGKILL');
      return failure('stopped', 'The supervisor was stopped while the pack service booted');
    }
    child.url = `http://127.0.0.1:${outcome.value.port}`;
    child.pool = childPool(child.url);
    child.servingSince = Date.now();
    const previous = current;
    current = child;
    watchServing(child);
    emit({ kind: 'child-serving', pid: child.pid, port: outcome.value.port, replaced: previous?.pid });
    if (previous) void retire(previous);
    return ok({ pid: child.pid, port: outcome.value.port });
  };

  const stop = async (): Promise<void> => {
    epoch++;
    clearTimeout(restartTimer);
    restartTimer = undefined;
    const abandoned = [...booting];
    for (const child of abandoned) child.kill('SIGKILL');
    const serving = current;
    current = undefined;
    if (serving) void retire(serving);
    await Promise.all([...retiring, ...abandoned.map((child) => child.exited)]);
    emit({ kind: 'stopped' });
  };

  return {
    token,
    get url() {
      return url;
    },
    get servingPid() {
      return current?.pid;
    },
    async listen() {
      if (url) return { url, token };
      const front = createServer(createFrontHandler({ token, current: target }));
      const host = options.host ?? '127.0.0.1';
      await new Promise<void>((resolve, reject) => {
        front.once('error', (error) => reject(new SupervisorError('listen-failed', `Cannot listen: ${error.message}`)));
        front.listen(options.port ?? 0, host, () => resolve());
      });
      // Errors after listening (a socket error) are per connection; keep the front up.
      front.on('error', () => undefined);
      server = front;
      const address = front.address() as AddressInfo;
      url = `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
      emit({ kind: 'front-listening', url });
      return { url, token };
    },
    start(indexPath) {
      clearTimeout(restartTimer);
      restartTimer = undefined;
      restartAttempt = 0;
      const startEpoch = epoch;
      return serialize(() => boot(indexPath, 'start', startEpoch));
    },
    stop,
    async close() {
      await stop();
      const front = server;
      server = undefined;
      url = undefined;
      if (front) {
        await new Promise<void>((resolve) => {
          front.close(() => resolve());
          front.closeAllConnections();
        });
      }
      emit({ kind: 'closed' });
    },
  };
}
