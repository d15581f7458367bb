import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { err, ok, type Result } from '@kindgi/protocol';
import type { ServerConfig } from '../config/config.js';
import { createPackRuntimeDir, type PackRuntimeDir } from '../isolation/directories.js';
import type { PackIsolation } from '../isolation/plan.js';
import { type PackHost, startPackHost } from '../packs/pack-host.js';
import { remoteReplyBudget, startRemotePackHost } from '../packs/remote-pack.js';
import { guardSecretsTransport, insecureSecretsProblem } from '../packs/secrets-transport.js';
import { createIndexCatalog, type IndexCatalog } from '../packs/tool-registry.js';
import type { ServerLogger } from '../telemetry/logger.js';
import type { ServerMetrics } from '../telemetry/metrics.js';
import { type PackRouting, routePackCalls } from './routing.js';
import type { Teardown } from './teardown.js';

/** The deployed packs: a host per pack id (in config order) and the calls routed to them. */
export interface ServerPacks extends PackRouting {
  readonly hosts: ReadonlyMap<string, PackHost>;
}

/** This install's pack service, loading TypeScript through tsx. */
export function defaultPackCommand(): string[] {
  const main = fileURLToPath(import.meta.resolve('@kindgi/pack-service/main'));
  // Packs are served from their sources: tsx's loader lets the pack service import TypeScript with real
  // ESM semantics (a CommonJS-style transpile would wrap a module's default export once more).
  const loader = import.meta.resolve('tsx/esm');
  return [process.execPath, '--import', loader, main];
}

/**
 * Starts a host for every configured pack (a supervised local pack service, or a remote one), every one
 * even when some fail, so the error lists every problem. The hosts started go on `teardown`.
 */
export async function startPacks(
  config: ServerConfig,
  options: {
    logger: ServerLogger;
    command: readonly string[];
    metrics: ServerMetrics | undefined;
    isolation: PackIsolation;
  },
  teardown: Teardown,
): Promise<Result<ServerPacks, string[]>> {
  const { logger, command, metrics, isolation } = options;
  const runtime = packRuntime(isolation, teardown);
  if (runtime.kind === 'err') return err([runtime.error]);
  const hosts = new Map<string, PackHost>();
  // One step for all: the pack services drain side by side, not one after another.
  teardown.add('packs', async () => {
    await Promise.all([...hosts.values()].map((host) => host.close().catch(() => undefined)));
  });
  let catalog: IndexCatalog = createIndexCatalog([]);
  const refreshCatalog = () => {
    catalog = createIndexCatalog([...hosts.values()].map((host) => host.index));
  };
  const problems: string[] = [];
  // One budget for every remote pack's replies: the bound is the process's.
  const replies = remoteReplyBudget(config.remoteReplies);
  for (const [position, pack] of config.packs.entries()) {
    const workDir = join(config.dataDir, 'packs', String(position));
    const local = 'url' in pack ? undefined : localPackDirs(runtime.value, position, workDir, isolation);
    if (local?.kind === 'err') {
      problems.push(local.error);
      continue;
    }
    const started =
      'url' in pack
        ? await startRemotePackHost({
            pack,
            workDir,
            logger,
            onReindexed: refreshCatalog,
            replies,
            ...(metrics ? { metrics } : {}),
          })
        : await startPackHost({
            pack,
            workDir: local?.value.workDir ?? workDir,
            ...(local?.value.runAs ? { runAs: local.value.runAs } : {}),
            logger,
            command,
            onReindexed: refreshCatalog,
            ...(metrics ? { onSupervisorEvent: metrics.packEvent } : {}),
          });
    if (started.kind === 'err') {
      problems.push(started.error);
      continue;
    }
    if ('url' in pack) {
      const insecure = insecureSecretsProblem(pack, started.value.index);
      if (insecure !== undefined) {
        problems.push(insecure);
        await started.value.close();
        continue;
      }
    }
    const host = 'url' in pack ? guardSecretsTransport(started.value, pack) : started.value;
    const packId = host.index.packId;
    if (hosts.has(packId)) {
      problems.push(`${'dir' in pack ? pack.dir : pack.url}: pack ${packId} is configured twice`);
      await started.value.close();
      continue;
    }
    hosts.set(packId, host);
  }
  if (problems.length > 0) return err(problems);
  refreshCatalog();
  return ok({ hosts, ...routePackCalls(hosts, () => catalog) });
}

/** The folder local packs' files go in when they run as another user (removed on close), else none. */
function packRuntime(isolation: PackIsolation, teardown: Teardown): Result<PackRuntimeDir | undefined, string> {
  if (!isolation.user) return ok(undefined);
  const created = createPackRuntimeDir(isolation.user);
  if (created.kind === 'ok') teardown.add('pack runtime folder', () => created.value.remove());
  return created;
}

/** Where a local pack's index and builds go: the data directory, or the runtime folder its user can read. */
function localPackDirs(
  runtime: PackRuntimeDir | undefined,
  position: number,
  dataWorkDir: string,
  isolation: PackIsolation,
): Result<{ workDir: string; runAs?: { user: NonNullable<PackIsolation['user']>; home: string } }, string> {
  if (!runtime || !isolation.user) return ok({ workDir: dataWorkDir });
  const dirs = runtime.packDir(position);
  if (dirs.kind === 'err') return dirs;
  return ok({ workDir: dirs.value.workDir, runAs: { user: isolation.user, home: dirs.value.home } });
}
