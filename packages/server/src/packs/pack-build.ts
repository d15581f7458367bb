import { runIndexer } from '@kindgi/indexer';
import type { PackServiceSupervisorOptions } from '@kindgi/pack-service';
import { err, type PackIndex, type Result } from '@kindgi/protocol';
import type { PackConfig } from '../config/config.js';
import { failureOfReport, type PackBuildFailure, readIndexFile } from './build-tool.js';
import { createJavaPackBuild, isJavaPack } from './java-pack.js';
import { createPythonPackBuild, isPythonPack } from './python-pack.js';

/**
 * How the server builds, indexes and serves one pack, whatever its language: the one shape the host and its
 * reload loop drive, so neither asks which language a pack is written in.
 */
export interface PackBuild {
  /** Builds (where the language needs it) and indexes into `indexPath`; on a failure the last good index stays. */
  build(indexPath: string): Promise<Result<PackIndex, PackBuildFailure>>;
  /** The pack service's command: a function where each build serves from its own snapshot. */
  command: PackServiceSupervisorOptions['command'];
  /** Supervisor settings the language needs (how the token travels, a warm spare child). */
  supervisor: Pick<PackServiceSupervisorOptions, 'tokenVia' | 'warmSpare'>;
  /** After the supervisor started the last build: it serves, or the old one keeps serving. */
  started(serving: boolean): void;
  /** Files the language's own tools write, which must not trigger a reload. */
  ignores(changed: string | null): boolean;
  /** Removes what the builds left (snapshots). */
  close(): void;
}

async function indexTypeScript(pack: PackConfig, outputPath: string): Promise<Result<PackIndex, PackBuildFailure>> {
  // The indexer fails loud and writes nothing on any failing file, so `outputPath` keeps the last good index.
  const outcome = await runIndexer({ packDir: pack.dir, outputPath });
  if (outcome.kind === 'err') return err(failureOfReport(outcome.error));
  return readIndexFile(outputPath);
}

/**
 * The build of the pack in `pack.dir`: Java (Maven, `Main index`, a snapshot per build: java-pack.ts), Python
 * (`python -m kindgi.pack`: python-pack.ts), else TypeScript/JavaScript (kindgi-index, served by `nodeCommand`).
 */
export async function packBuildFor(
  pack: PackConfig,
  workDir: string,
  nodeCommand: readonly string[],
): Promise<PackBuild> {
  const fixed = { started: () => {}, close: () => {} };
  if (isJavaPack(pack.dir)) {
    const java = createJavaPackBuild({ dir: pack.dir, workDir });
    // A JVM can't read the supervisor's descriptor 3 (a socket: open("/dev/fd/3") fails); `Main serve` moves
    // the token off the environment pack code sees by itself (java-pack.ts).
    return { ...java, command: () => java.command(), supervisor: { tokenVia: 'env' } };
  }
  if (await isPythonPack(pack.dir)) {
    const python = createPythonPackBuild({ dir: pack.dir, ...(pack.python ? { python: pack.python } : {}) });
    return { ...fixed, ...python, command: python.command(), supervisor: {} };
  }
  return {
    ...fixed,
    build: (indexPath) => indexTypeScript(pack, indexPath),
    command: nodeCommand,
    // A watched pack reloads on every save: a child waiting with node and the service's code loaded takes
    // most of the boot out of a reload (docs/benchmarks/cli-dev.md). Only the Node pack service is known to
    // read its token (the spare's gate) before its index.
    supervisor: pack.watch ? { warmSpare: true } : {},
    ignores: () => false,
  };
}
