import { type FSWatcher, watch } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { PackServiceSupervisor } from '@kindgi/pack-service';
import type { PackIndex } from '@kindgi/protocol';
import type { ServerLogger } from '../telemetry/logger.js';
import type { PackBuild } from './pack-build.js';
import { isPackEnvFile } from './pack-env.js';

const IGNORED_DIRS = new Set(['node_modules', 'dist', '.kindgi', '.git', 'coverage']);
// How long the watcher waits for a quiet moment before a reload. An editor's save (truncate and write,
// or write a temporary file and rename it) is a burst of events within a few milliseconds; more keeps
// every save that much slower (docs/benchmarks/cli-dev.md).
const SETTLE_MS = 50;

function isIgnored(dir: string, changed: string | null): boolean {
  if (!changed) return false;
  const first = relative(dir, join(dir, changed)).split(sep)[0] ?? '';
  return IGNORED_DIRS.has(first) || first.startsWith('.');
}

/** What a watched pack's reload loop drives. */
export interface PackReloadOptions {
  dir: string;
  indexPath: string;
  build: PackBuild;
  supervisor: PackServiceSupervisor;
  logger: ServerLogger;
  /** The index serving now. */
  current(): PackIndex;
  /** A new index serves (after its service started). */
  reindexed(index: PackIndex): void;
  /** The same code restarted on changed env files: report which variables it got. */
  restarted(): void;
}

/** One reload of changed code: build, start the new service, or keep the last good one and say why. */
async function reindex(options: PackReloadOptions, seenAt: number): Promise<void> {
  const { build, supervisor, logger, indexPath } = options;
  const packId = options.current().packId;
  const began = performance.now();
  const next = await build.build(indexPath);
  if (next.kind === 'err') {
    const message = `pack ${packId}: ${next.error.message} (the last good code keeps serving)`;
    logger.log('warn', 'pack-reindex-failed', message, { packId, problems: next.error.problems });
    return;
  }
  const indexed = performance.now();
  const swapped = await supervisor.start(indexPath);
  build.started(swapped.kind === 'ok');
  if (swapped.kind === 'err') {
    const message = `pack ${packId}: ${swapped.error.message} (the last good code keeps serving)`;
    logger.log('warn', 'pack-swap-failed', message, { problems: swapped.error.problems });
    return;
  }
  const timings = { waitMs: began - seenAt, indexMs: indexed - began, bootMs: performance.now() - indexed };
  logger.log('info', 'pack-reloaded', `pack ${next.value.packId} reloaded`, {
    artifactVersion: next.value.artifactVersion,
    timings: Object.fromEntries(Object.entries(timings).map(([name, ms]) => [name, Math.round(ms)])),
  });
  options.reindexed(next.value);
}

/** An env file changed: the same code restarts with the new values (the index and build stay). */
async function restart(options: PackReloadOptions): Promise<void> {
  const packId = options.current().packId;
  const restarted = await options.supervisor.start(options.indexPath);
  if (restarted.kind === 'err') {
    const message = `pack ${packId}: ${restarted.error.message} (the last good child keeps serving)`;
    options.logger.log('warn', 'pack-swap-failed', message, { problems: restarted.error.problems });
    return;
  }
  options.logger.log('info', 'pack-restarted', `pack ${packId} restarted: its env files changed`, { packId });
  options.restarted();
}

/**
 * Watches a pack's folder: a burst of saves settles into one reload (code) or restart (env files), one at a
 * time, each leaving the last good code serving when it fails. `close` waits for the reload under way.
 */
export function watchPackReloads(options: PackReloadOptions): { close(): Promise<void> } {
  let timer: NodeJS.Timeout | undefined;
  let swapping: Promise<void> = Promise.resolve();
  // When the first change of the burst being handled was seen: a reload reports where its time went.
  let changeSeenAt: number | undefined;
  let envChanged = false;
  let codeChanged = false;
  const settle = async () => {
    const [code, env] = [codeChanged, envChanged];
    const seenAt = changeSeenAt ?? performance.now();
    [codeChanged, envChanged, changeSeenAt] = [false, false, undefined];
    // A re-index starts a new child, which reads the env files anyway.
    if (code) await reindex(options, seenAt);
    else if (env) await restart(options);
  };
  const watcher: FSWatcher = watch(options.dir, { recursive: true }, (_event, changed) => {
    if (isPackEnvFile(changed)) envChanged = true;
    else if (isIgnored(options.dir, changed) || options.build.ignores(changed)) return;
    else codeChanged = true;
    changeSeenAt ??= performance.now();
    clearTimeout(timer);
    timer = setTimeout(() => {
      swapping = swapping.then(settle, settle);
    }, SETTLE_MS);
  });
  return {
    async close() {
      watcher.close();
      clearTimeout(timer);
      await swapping.catch(() => undefined);
    },
  };
}
