import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { err, ok, type PackIndex, type Result } from '@kindgi/protocol';
import type { CliFailure } from '../cli/output.js';

/** What `kindgi index` wrote. */
export interface PackIndexReport {
  readonly language: 'ts' | 'java';
  readonly outputPath: string;
  readonly counts: { tools: number; guardrails: number; agents: number; flows: number };
  readonly warnings: readonly { code: string; message: string }[];
}

type Problems = readonly { code: string; file?: string; message: string }[];

function failure(code: string, message: string, problems?: Problems): CliFailure {
  return { code, message, ...(problems && problems.length > 0 ? { details: { problems } } : {}) };
}

async function indexTypeScript(
  packDir: string,
  output: string | undefined,
): Promise<Result<PackIndexReport, CliFailure>> {
  // Loaded on use: the indexer (and the TypeScript loader it brings) is only needed here.
  const { runIndexer } = await import('@kindgi/indexer');
  const outcome = await runIndexer({ packDir, ...(output === undefined ? {} : { outputPath: output }) });
  if (outcome.kind === 'err') {
    const { code, message, fileErrors } = outcome.error;
    return err(failure(code, `${code}: ${message}`, fileErrors));
  }
  const { outputPath, counts, warnings } = outcome.value;
  return ok({
    language: 'ts',
    outputPath,
    counts: { tools: counts.tools, guardrails: counts.guardrails, agents: counts.agents, flows: counts.flows },
    warnings: warnings.map((warning) => ({ code: warning.code, message: warning.message })),
  });
}

/** A Java pack, built and indexed exactly as the server (and `kindgi dev`) does it: @kindgi/server's java-pack. */
async function indexJava(packDir: string, output: string | undefined): Promise<Result<PackIndexReport, CliFailure>> {
  const { createJavaPackBuild } = await import('@kindgi/server');
  const outputPath = resolve(packDir, output ?? 'target/index.json');
  const workDir = await mkdtemp(join(tmpdir(), 'kindgi-index-'));
  const build = createJavaPackBuild({ dir: packDir, workDir });
  try {
    const built = await build.build(outputPath);
    if (built.kind === 'err') {
      const code = built.error.problems[0]?.code ?? 'index-failed';
      return err(failure(code, built.error.message, built.error.problems));
    }
    const index: PackIndex = built.value;
    return ok({
      language: 'java',
      outputPath,
      counts: {
        tools: index.tools.length,
        guardrails: index.guardrails.length,
        agents: index.agents?.length ?? 0,
        flows: index.flows?.length ?? 0,
      },
      warnings: [],
    });
  } finally {
    build.close();
    await rm(workDir, { recursive: true, force: true });
  }
}

/** Indexes the pack in `packDir` with its language's indexer; `output` is relative to the pack (or absolute). */
export async function indexPack(
  packDir: string,
  output: string | undefined,
): Promise<Result<PackIndexReport, CliFailure>> {
  const { isJavaPack } = await import('@kindgi/server');
  return isJavaPack(packDir) ? indexJava(packDir, output) : indexTypeScript(packDir, output);
}
