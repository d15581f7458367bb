import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { PackCaller } from '@kindgi/bindings';
import {
  createPackServiceClient,
  createPackServiceSupervisor,
  type PackServiceSupervisor,
  type SupervisorEvent,
} from '@kindgi/pack-service';
import { err, ok, type PackIndex, type Result } from '@kindgi/protocol';
import type { PackConfig } from '../config/config.js';
import type { PackUser } from '../isolation/pack-user.js';
import type { ServerLogger } from '../telemetry/logger.js';
import { type PackBuild, packBuildFor } from './pack-build.js';
import { clientCaller } from './pack-caller.js';
import { packEnv, packEnvReport } from './pack-env.js';
import { watchPackReloads } from './pack-reload.js';

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

/** The supervisor of one pack's service: its command and settings, its logs and events as server records. */
function superviseBuild(options: PackHostOptions, build: PackBuild, current: () => PackIndex): PackServiceSupervisor {
  const { pack, logger } = options;
  return createPackServiceSupervisor({
    command: build.command,
    ...build.supervisor,
    moduleRoot: pack.dir,
    cwd: pack.dir,
    ...(options.runAs ? { user: { uid: options.runAs.user.uid, gid: options.runAs.user.gid } } : {}),
    env: () => packEnv(pack, current(), options.runAs?.home),
    onLog: (record) =>
      logger.log('info', 'pack-log', `[${current().packId}] ${String(record.record.message ?? record.kind)}`, {
        packId: current().packId,
        record: record.record,
      }),
    onOutput: (line, stream) =>
      logger.log('info', 'pack-output', `[${current().packId}] ${line}`, { packId: current().packId, stream }),
    onEvent: (event) => {
      const packId = current().packId;
      options.onSupervisorEvent?.(packId, event);
      // Held and released calls are per-call noise; the lifecycle events are what an operator reads.
      if (event.kind === 'call-held' || event.kind === 'call-released') return;
      const level = event.kind === 'boot-failed' || event.kind === 'call-refused' ? 'error' : 'info';
      logger.log(level, `pack-${event.kind}`, `pack ${packId}: ${event.kind}`, { packId, ...event });
    },
  });
}

/** Names only: which of the pack's variables its service got, and which declared ones it lacks. */
function reportEnv(options: PackHostOptions, index: PackIndex): void {
  const report = packEnvReport(options.pack, index, packEnv(options.pack, index, options.runAs?.home));
  options.logger.log('info', 'pack-env', `pack ${index.packId}: ${report.loaded.length} variables from its env`, {
    packId: index.packId,
    ...report,
  });
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
  const build = await packBuildFor(pack, options.workDir, options.command);
  const first = await build.build(indexPath);
  if (first.kind === 'err') return err(`${pack.dir}: ${first.error.message}`);
  let current = first.value;

  const supervisor = superviseBuild(options, build, () => current);
  const front = await supervisor.listen();
  const started = await supervisor.start(indexPath);
  build.started(started.kind === 'ok');
  if (started.kind === 'err') {
    await supervisor.close();
    build.close();
    const problems = [...started.error.problems, ...started.error.output].join('; ');
    return err(
      `${pack.dir}: the pack service did not start (${started.error.message})${problems ? `: ${problems}` : ''}`,
    );
  }
  const client = createPackServiceClient({ url: front.url, token: front.token });
  reportEnv(options, current);
  logger.log('info', 'pack-serving', `pack ${current.packId} serves ${current.tools.length} tools`, {
    packId: current.packId,
    artifactVersion: current.artifactVersion,
    indexPath,
  });
  const reloads = pack.watch
    ? watchPackReloads({
        dir: pack.dir,
        indexPath,
        build,
        supervisor,
        logger,
        current: () => current,
        reindexed: (index) => {
          current = index;
          options.onReindexed?.(index);
        },
        restarted: () => reportEnv(options, current),
      })
    : undefined;

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
      await reloads?.close();
      await supervisor.stop();
      await client.close();
      await supervisor.close();
      build.close();
    },
  });
}
