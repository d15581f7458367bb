import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { err, ok, type Result } from '@kindgi/protocol';
import { createSessionToken, isValidSessionToken } from '../transport/token.js';
import { type Child, childPool, spawnChild } from './child.js';
import { createFrontHandler } from './front.js';
import { createCallHolds, type FrontState } from './hold.js';
import { childLaunch, restartDelayMs, retireChild } from './launch.js';
import type {
  PackServiceSupervisor,
  PackServiceSupervisorOptions,
  SupervisorEvent,
  SupervisorStartError,
  SupervisorStarted,
} from './types.js';

export type { PackServiceSupervisor } from './types.js';

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

function nonNegative(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 0) {
    throw new SupervisorError('supervisor-config-invalid', `\`${name}\` must be a number ≥ 0`);
  }
  return value;
}

/**
 * Creates a supervisor for local development. Throws a `SupervisorError` for an invalid token, command or
 * hold option (programming errors); everything at run time is reported through results and events.
 *
 * The front's replies: the serving child's reply as it is; 502 when the child died with the call in flight
 * (it may have run); 503 + `retry-after: 1` when the call did not run. While no child serves but one is
 * coming (a crashed child's restart is scheduled or booting, or a `start()` boots while none serves), the
 * front holds calls, first come first served, and forwards them once a child serves; it answers 503 only
 * when no child is coming (never started, after `stop()` / `close()`), when that boot fails, when the hold
 * passes `holdWhileRestartingMs` (or the call's `kindgi-timeout-ms`), or when `maxHeldCalls` are held.
 * A held call whose caller disconnects is dropped unsent. `/readyz` never holds: 200 only while a child serves.
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
  const holdMs = nonNegative(options.holdWhileRestartingMs, 10_000, 'holdWhileRestartingMs');
  const maxHeld = nonNegative(options.maxHeldCalls, 1_000, 'maxHeldCalls');
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
  // The epoch of a restart whose timer fired and whose boot is queued or running.
  let restartEpoch: number | undefined;
  // start() calls not yet settled, by the epoch they began in (a stop() since makes them moot).
  const pendingStarts = new Set<{ epoch: number }>();
  // The boot that was to end a gap failed; calls are refused, not held, until a child serves or a start().
  let bootFailed = false;
  let queue: Promise<unknown> = Promise.resolve();

  const serialize = <T>(task: () => Promise<T>): Promise<T> => {
    const run = queue.then(task, task);
    queue = run.catch(() => undefined);
    return run;
  };

  const state = (): FrontState => {
    if (current?.url && current.pool) {
      return { kind: 'serving', target: { url: current.url, token, dispatcher: current.pool } };
    }
    if ([...pendingStarts].some((start) => start.epoch === epoch)) return { kind: 'expected' };
    if (bootFailed) return { kind: 'unavailable', reason: 'boot-failed' };
    if (restartTimer || restartEpoch === epoch) return { kind: 'expected' };
    return { kind: 'unavailable', reason: 'not-running' };
  };
  const holds = createCallHolds({ state, maxHeld, emit });
  // Every change of `state()`'s inputs ends with this, so held calls move on as soon as they can.
  const changed = (): void => holds.update();

  const retire = (child: Child): Promise<void> => {
    emit({ kind: 'child-retiring', pid: child.pid });
    // New calls already go to its successor.
    const done = retireChild(child, options.drainMs ?? 30_000, options.killAfterMs ?? 10_000);
    retiring.add(done);
    void done.finally(() => retiring.delete(done));
    return done;
  };

  // A crashed child restarts on the code it was running (a newer start() cancels the restart).
  const scheduleRestart = (indexPath: string): void => {
    if (restartTimer) return;
    restartAttempt++;
    const delayMs = restartDelayMs(backoff, restartAttempt);
    emit({ kind: 'restart-scheduled', attempt: restartAttempt, delayMs });
    const scheduledEpoch = epoch;
    restartTimer = setTimeout(() => {
      restartTimer = undefined;
      restartEpoch = scheduledEpoch;
      void serialize(async () => {
        try {
          // A start() or stop() since the crash already decided what serves.
          if (current || epoch !== scheduledEpoch) return;
          const outcome = await boot(indexPath, 'restart', scheduledEpoch);
          if (outcome.kind === 'err' && !current && epoch === scheduledEpoch) {
            bootFailed = true;
            scheduleRestart(indexPath);
          }
        } finally {
          if (restartEpoch === scheduledEpoch) restartEpoch = undefined;
          changed();
        }
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
      changed();
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
    const launch = childLaunch(options, argv, indexPath, token);
    const child = spawnChild({
      ...launch,
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
    bootFailed = false;
    watchServing(child);
    emit({ kind: 'child-serving', pid: child.pid, port: outcome.value.port, replaced: previous?.pid });
    changed();
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
    bootFailed = false;
    changed();
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
      const front = createServer(
        createFrontHandler({
          token,
          state,
          holds,
          holdMs,
          ...(options.maxReplyBytes !== undefined ? { maxReplyBytes: options.maxReplyBytes } : {}),
        }),
      );
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
    async start(indexPath) {
      clearTimeout(restartTimer);
      restartTimer = undefined;
      restartAttempt = 0;
      bootFailed = false;
      const pending = { epoch };
      pendingStarts.add(pending);
      let outcome: Result<SupervisorStarted, SupervisorStartError> | undefined;
      try {
        outcome = await serialize(() => boot(indexPath, 'start', pending.epoch));
        return outcome;
      } finally {
        pendingStarts.delete(pending);
        if (outcome?.kind !== 'ok' && outcome?.error.code !== 'stopped' && !current) bootFailed = true;
        changed();
      }
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
