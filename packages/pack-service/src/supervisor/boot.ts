import { err, messageOf, ok, type Result } from '@kindgi/protocol';
import { type Child, type SpawnChildOptions, spawnChild } from './child.js';
import { type ChildLaunch, childLaunch } from './launch.js';
import type { SpareSlot } from './spare.js';
import type { PackServiceSupervisorOptions, SupervisorEvent, SupervisorStartError } from './types.js';

/** The supervisor options a boot reads. */
export type BootOptions = Pick<
  PackServiceSupervisorOptions,
  'command' | 'env' | 'moduleRoot' | 'tokenVia' | 'cwd' | 'user' | 'bootTimeoutMs' | 'onLog' | 'onOutput'
>;

/** What every boot of one supervisor shares. */
export interface BootDeps {
  options: BootOptions;
  token: string;
  emit: (event: SupervisorEvent) => void;
  /** The child was spawned and boots / its boot ended (a `stop()` meanwhile kills it). */
  began: (child: Child) => void;
  ended: (child: Child) => void;
  /** Starts the process: `spawnChild` unless a test gives a fake. */
  spawn?: (options: SpawnChildOptions) => Child;
  /** Where a spare child waits (`warmSpare`): a boot whose launch matches it takes it. */
  spares?: SpareSlot;
}

/** One boot: the index to serve, why it boots, and whether a `stop()` since it was asked made it moot. */
export interface BootRequest {
  indexPath: string;
  reason: 'start' | 'restart';
  stale: () => boolean;
}

/** A child that listens, not yet serving: the caller switches calls to it. */
export interface BootedChild {
  child: Child;
  port: number;
}

function failure(code: SupervisorStartError['code'], message: string) {
  return err<SupervisorStartError>({ code, message, problems: [], exitCode: null, signal: null, output: [] });
}

const STOPPED_BEFORE = 'The supervisor was stopped before the pack service started';
const STOPPED_DURING = 'The supervisor was stopped while the pack service booted';

/** The command's argv (a function's is awaited), or why it is not one. */
async function resolveCommand(command: BootOptions['command']): Promise<Result<readonly string[], string>> {
  let argv: readonly string[];
  try {
    argv = typeof command === 'function' ? await command() : command;
  } catch (thrown) {
    return err(`The command function threw: ${String(thrown)}`);
  }
  if (!Array.isArray(argv) || argv.length === 0 || argv.some((part) => typeof part !== 'string')) {
    return err('`command` must give a non-empty list of strings');
  }
  return ok(argv);
}

/** What makes two launches the same process: a spare serves a start only when this matches. */
function launchKey(options: BootOptions, launch: ChildLaunch): string {
  return JSON.stringify([launch.argv, launch.env, options.cwd ?? null, options.user ?? null]);
}

function spawnLaunch(deps: BootDeps, launch: ChildLaunch, indexPath: string, spare: boolean): Child {
  const { options } = deps;
  return (deps.spawn ?? spawnChild)({
    ...launch,
    cwd: options.cwd,
    ...(options.user ? { user: options.user } : {}),
    indexPath,
    ...(spare ? { spare } : {}),
    bootTimeoutMs: options.bootTimeoutMs ?? 60_000,
    onRecord: (record) => options.onLog?.(record),
    onOutput: (line, stream, pid) => options.onOutput?.(line, stream, pid),
  });
}

/**
 * Starts a spare child for `indexPath` (only with the token on descriptor 3: the wait for it is the gate),
 * or nothing when the command or the environment can't be had now (the next start reports that).
 */
export async function spawnSpare(
  deps: BootDeps,
  indexPath: string,
): Promise<{ key: string; child: Child } | undefined> {
  const argv = await resolveCommand(deps.options.command);
  if (argv.kind === 'err') return undefined;
  try {
    const launch = childLaunch(deps.options, argv.value, indexPath, deps.token);
    if (launch.tokenOnFd3 === undefined) return undefined;
    return { key: launchKey(deps.options, launch), child: spawnLaunch(deps, launch, indexPath, true) };
  } catch {
    return undefined;
  }
}

/**
 * Spawns the child, or releases the spare started with the same launch. A throwing `env()` or a spawn that throws at once (not the usual asynchronous spawn
 * error, which `booted` reports) fails this boot, never the caller: a restart runs with no caller to catch it.
 */
function spawnFor(
  deps: BootDeps,
  argv: readonly string[],
  indexPath: string,
): Result<{ child: Child; spare: boolean }, SupervisorStartError> {
  try {
    const launch = childLaunch(deps.options, argv, indexPath, deps.token);
    const spare = deps.spares?.take(launchKey(deps.options, launch));
    spare?.release?.();
    return ok(
      spare ? { child: spare, spare: true } : { child: spawnLaunch(deps, launch, indexPath, false), spare: false },
    );
  } catch (thrown) {
    return failure('spawn-failed', `The pack service could not be started: ${messageOf(thrown)}`);
  }
}

/**
 * Boots one child on `indexPath` until it listens. A `stop()` at any await makes it `stopped` (a child
 * that listened anyway is killed); a child that fails to boot is reported (`boot-failed` event) and killed.
 */
export async function bootChild(
  deps: BootDeps,
  request: BootRequest,
): Promise<Result<BootedChild, SupervisorStartError>> {
  const { options } = deps;
  if (request.stale()) return failure('stopped', STOPPED_BEFORE);
  const argv = await resolveCommand(options.command);
  if (argv.kind === 'err') return failure('command-invalid', argv.error);
  if (request.stale()) return failure('stopped', STOPPED_BEFORE);
  const spawned = spawnFor(deps, argv.value, request.indexPath);
  if (spawned.kind === 'err') return spawned;
  const { child, spare } = spawned.value;
  deps.began(child);
  deps.emit({
    kind: 'child-spawned',
    pid: child.pid,
    indexPath: request.indexPath,
    reason: request.reason,
    ...(spare ? { spare } : {}),
  });
  const outcome = await child.booted;
  deps.ended(child);
  // A boot a stop() interrupted failed because of it (the stop killed the child): not the child's fault.
  if (outcome.kind === 'err' && request.stale()) return failure('stopped', STOPPED_DURING);
  if (outcome.kind === 'err') {
    const { problems, exitCode, signal } = outcome.error;
    deps.emit({ kind: 'boot-failed', pid: child.pid, problems, exitCode, signal });
    child.kill('SIGKILL');
    return outcome;
  }
  if (request.stale()) {
    child.kill('SIGKILL');
    return failure('stopped', STOPPED_DURING);
  }
  return ok({ child, port: outcome.value.port });
}
