import { type FSWatcher, readFileSync, watch } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import type { PackCaller } from '@kindgi/bindings';
import { runIndexer } from '@kindgi/indexer';
import {
  createPackServiceClient,
  createPackServiceSupervisor,
  type PackServiceSupervisor,
  type SupervisorEvent,
} from '@kindgi/pack-service';
import { err, messageOf, ok, type PackIndex, type Result } from '@kindgi/protocol';
import type { PackConfig } from '../config/config.js';
import type { PackUser } from '../isolation/pack-user.js';
import type { ServerLogger } from '../telemetry/logger.js';
import { createJavaPackBuild, isJavaPack } from './java-pack.js';
import { clientCaller } from './pack-caller.js';
import { isPackEnvFile, packEnv, packEnvReport } from './pack-env.js';
import { createPythonPackBuild, isPythonPack } from './python-pack.js';

/** A pack this server serves: its current index, and the pipeline its calls take once routed to it. */
export interface PackHost {
  readonly dir: string;
  readonly index: PackIndex;
  /**
   * Calls this pack: the layers below routing (a remote pack's retry) and the transport. A supervised
   * pack has no retry here: its supervisor's front holds a call through a restart and retries it there.
   */
  readonly call: PackCaller;
  /** True while a pack service child serves calls (false while a crashed one restarts). */
  readonly serving: boolean;
  /** Stops watching, stops the pack service (it drains) and closes the supervisor's front. */
  close(): Promise<void>;
}

export interface PackHostOptions {
  pack: PackConfig;
  /** Where this pack's index is written (the pack's own folder may be read-only). */
  workDir: string;
  logger: ServerLogger;
  /** The pack service's argv; its `--index`, `--module-root` and `--host` are appended. */
  command: readonly string[];
  /** Called after a changed pack was re-indexed and its new service serves. */
  onReindexed?: (index: PackIndex) => void;
  /** Every supervisor event, held calls included (for metrics). */
  onSupervisorEvent?: (packId: string, event: SupervisorEvent) => void;
  /** The account the pack service runs as, and the home it owns (absent: the server's own user and HOME). */
  runAs?: { user: PackUser; home: string };
}

const IGNORED_DIRS = new Set(['node_modules', 'dist', '.kindgi', '.git', 'coverage']);
// How long the watcher waits for a quiet moment before a reload. An editor's save (truncate and write,
// or write a temporary file and rename it) is a burst of events within a few milliseconds; more keeps
// every save that much slower (docs/benchmarks/cli-dev.md).
const SETTLE_MS = 50;

/** Why a pack could not be indexed: one line, and each problem with the file it is in. */
interface IndexFailure {
  message: string;
  problems: { code: string; file?: string; message: string }[];
}

async function indexPack(pack: PackConfig, outputPath: string): Promise<Result<PackIndex, IndexFailure>> {
  // The indexer fails loud and writes nothing on any failing file, so `outputPath` keeps the last good index.
  const outcome = await runIndexer({ packDir: pack.dir, outputPath });
  if (outcome.kind === 'err') {
    const { code, message, file, fileErrors } = outcome.error;
    const problems = fileErrors ?? [{ code, message, ...(file === undefined ? {} : { file }) }];
    const detail = fileErrors ? fileErrors.map((f) => `${f.code}: ${f.message}`).join('; ') : message;
    return err({ message: `${code}: ${detail}`, problems });
  }
  try {
    return ok(JSON.parse(readFileSync(outputPath, 'utf8')) as PackIndex);
  } catch (cause) {
    const message = `cannot read ${outputPath}: ${messageOf(cause)}`;
    return err({ message, problems: [{ code: 'output-write-failed', file: outputPath, message }] });
  }
}

function isIgnored(dir: string, changed: string | null): boolean {
  if (!changed) return false;
  const first = relative(dir, join(dir, changed)).split(sep)[0] ?? '';
  return IGNORED_DIRS.has(first) || first.startsWith('.');
}

/**
 * Indexes a pack, starts its pack service behind a supervisor, and (with `watch`) re-indexes and swaps
 * the service when the pack's files change: callers keep one URL and token, and a bad edit leaves the
 * last good code serving.
 */
export async function startPackHost(options: PackHostOptions): Promise<Result<PackHost, string>> {
  const { pack, logger } = options;
  await mkdir(options.workDir, { recursive: true });
  const indexPath = join(options.workDir, 'index.json');
  // A Java pack builds with Maven and its own indexer and serves from its build's snapshot (java-pack.ts).
  const java = isJavaPack(pack.dir) ? createJavaPackBuild({ dir: pack.dir, workDir: options.workDir }) : undefined;
  // A Python pack indexes and serves with the SDK's `python -m kindgi.pack` (python-pack.ts).
  const python =
    !java && (await isPythonPack(pack.dir))
      ? createPythonPackBuild({ dir: pack.dir, ...(pack.python ? { python: pack.python } : {}) })
      : undefined;
  const build = (path: string) => (java ? java.build(path) : python ? python.build(path) : indexPack(pack, path));
  const first = await build(indexPath);
  if (first.kind === 'err') return err(`${pack.dir}: ${first.error.message}`);
  let current = first.value;

  const supervisor: PackServiceSupervisor = createPackServiceSupervisor({
    command: java ? () => java.command() : python ? python.command() : options.command,
    // A JVM can't read the supervisor's descriptor 3 (a socket: open("/dev/fd/3") fails); `Main serve` moves
    // the token off the environment pack code sees by itself (java-pack.ts).
    ...(java ? { tokenVia: 'env' as const } : {}),
    // A watched pack reloads on every save: a child waiting with node and the service's code loaded
    // takes most of the boot out of a reload (docs/benchmarks/cli-dev.md). Only the Node pack service is
    // known to read its token (the spare's gate) before its index.
    ...(pack.watch && !java && !python ? { warmSpare: true } : {}),
    moduleRoot: pack.dir,
    cwd: pack.dir,
    ...(options.runAs ? { user: { uid: options.runAs.user.uid, gid: options.runAs.user.gid } } : {}),
    env: () => packEnv(pack, current, options.runAs?.home),
    onLog: (record) =>
      logger.log('info', 'pack-log', `[${current.packId}] ${String(record.record.message ?? record.kind)}`, {
        packId: current.packId,
        record: record.record,
      }),
    onOutput: (line, stream) =>
      logger.log('info', 'pack-output', `[${current.packId}] ${line}`, { packId: current.packId, stream }),
    onEvent: (event) => {
      options.onSupervisorEvent?.(current.packId, event);
      // Held and released calls are per-call noise; the lifecycle events are what an operator reads.
      if (event.kind === 'call-held' || event.kind === 'call-released') return;
      const level = event.kind === 'boot-failed' || event.kind === 'call-refused' ? 'error' : 'info';
      logger.log(level, `pack-${event.kind}`, `pack ${current.packId}: ${event.kind}`, {
        packId: current.packId,
        ...event,
      });
    },
  });
  const front = await supervisor.listen();
  const started = await supervisor.start(indexPath);
  java?.started(started.kind === 'ok');
  if (started.kind === 'err') {
    await supervisor.close();
    java?.close();
    const problems = [...started.error.problems, ...started.error.output].join('; ');
    return err(
      `${pack.dir}: the pack service did not start (${started.error.message})${problems ? `: ${problems}` : ''}`,
    );
  }
  const client = createPackServiceClient({ url: front.url, token: front.token });
  // Names only: which of the pack's variables its service got, and which declared ones it lacks.
  const reportEnv = () => {
    const report = packEnvReport(pack, current, packEnv(pack, current, options.runAs?.home));
    logger.log('info', 'pack-env', `pack ${current.packId}: ${report.loaded.length} variables from its env`, {
      packId: current.packId,
      ...report,
    });
  };
  reportEnv();
  logger.log('info', 'pack-serving', `pack ${current.packId} serves ${current.tools.length} tools`, {
    packId: current.packId,
    artifactVersion: current.artifactVersion,
    indexPath,
  });

  let watcher: FSWatcher | undefined;
  let timer: NodeJS.Timeout | undefined;
  let swapping: Promise<void> = Promise.resolve();
  // When the first change of the burst being handled was seen: a reload reports where its time went.
  let changeSeenAt: number | undefined;
  const reindex = async (seenAt: number) => {
    const began = performance.now();
    const next = await build(indexPath);
    if (next.kind === 'err') {
      logger.log(
        'warn',
        'pack-reindex-failed',
        `pack ${current.packId}: ${next.error.message} (the last good code keeps serving)`,
        { packId: current.packId, problems: next.error.problems },
      );
      return;
    }
    const indexed = performance.now();
    const swapped = await supervisor.start(indexPath);
    java?.started(swapped.kind === 'ok');
    if (swapped.kind === 'err') {
      logger.log(
        'warn',
        'pack-swap-failed',
        `pack ${current.packId}: ${swapped.error.message} (the last good code keeps serving)`,
        {
          problems: swapped.error.problems,
        },
      );
      return;
    }
    current = next.value;
    const timings = { waitMs: began - seenAt, indexMs: indexed - began, bootMs: performance.now() - indexed };
    logger.log('info', 'pack-reloaded', `pack ${current.packId} reloaded`, {
      artifactVersion: current.artifactVersion,
      timings: Object.fromEntries(Object.entries(timings).map(([name, ms]) => [name, Math.round(ms)])),
    });
    options.onReindexed?.(current);
  };
  // An env file changed: the same code restarts with the new values (the index and build stay).
  const restart = async () => {
    const restarted = await supervisor.start(indexPath);
    if (restarted.kind === 'err') {
      const message = `pack ${current.packId}: ${restarted.error.message} (the last good child keeps serving)`;
      logger.log('warn', 'pack-swap-failed', message, { problems: restarted.error.problems });
      return;
    }
    logger.log('info', 'pack-restarted', `pack ${current.packId} restarted: its env files changed`, {
      packId: current.packId,
    });
    reportEnv();
  };
  let envChanged = false;
  let codeChanged = false;
  const settle = async () => {
    const [code, env] = [codeChanged, envChanged];
    const seenAt = changeSeenAt ?? performance.now();
    [codeChanged, envChanged, changeSeenAt] = [false, false, undefined];
    // A re-index starts a new child, which reads the env files anyway.
    if (code) await reindex(seenAt);
    else if (env) await restart();
  };
  if (pack.watch) {
    watcher = watch(pack.dir, { recursive: true }, (_event, changed) => {
      if (isPackEnvFile(changed)) envChanged = true;
      else if (isIgnored(pack.dir, changed) || java?.ignores(changed) || python?.ignores(changed)) return;
      else codeChanged = true;
      changeSeenAt ??= performance.now();
      clearTimeout(timer);
      timer = setTimeout(() => {
        swapping = swapping.then(settle, settle);
      }, SETTLE_MS);
    });
  }

  return ok({
    dir: pack.dir,
    get index() {
      return current;
    },
    call: clientCaller(client),
    get serving() {
      return supervisor.servingPid !== undefined;
    },
    async close() {
      watcher?.close();
      clearTimeout(timer);
      await swapping.catch(() => undefined);
      await supervisor.stop();
      await client.close();
      await supervisor.close();
      java?.close();
    },
  });
}
