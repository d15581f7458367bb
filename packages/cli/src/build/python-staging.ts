import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { err, ok, type Result } from '@kindgi/protocol';
import { contextIgnorePatterns } from './ignore-file.js';
import type { BuildFailure, PackInputs } from './pack-inputs.js';
import { timePins } from './pins.js';
import {
  contextArtifactVersion,
  copyFiles,
  listBuildContext,
  localPython,
  runPythonIndexerStage,
} from './python-index.js';
import { pythonInstall } from './python-inputs.js';
import { pythonImagePlan } from './python-plan.js';
import type { BuildOptions, Staged } from './run-build.js';

/**
 * Runs the image's indexer stage locally: a scratch folder holding `pack/` (the build context, as the
 * build stage's `COPY . .` gets it), the same command and environment; its index.json goes to `staging`.
 */
async function indexLocally(
  options: BuildOptions,
  files: readonly string[],
  staging: string,
  pins: { publishedAt: string; artifactVersion: string },
): Promise<Result<void, BuildFailure>> {
  const stage = await mkdtemp(join(tmpdir(), 'kindgi-build-indexer-'));
  try {
    await copyFiles(options.packDir, join(stage, 'pack'), files);
    const python = localPython(options.packDir, options.env.PATH);
    const ran = await runPythonIndexerStage(python, stage, { ...pins, path: options.env.PATH ?? '' });
    if (ran.kind === 'err') return err({ code: 'index-failed', message: ran.error });
    await copyFiles(stage, staging, ['index.json']);
    return ok(undefined);
  } finally {
    await rm(stage, { recursive: true, force: true });
  }
}

/**
 * A Python pack's build: the Containerfile (virtualenv, indexer, runtime stages) and index.json written
 * by `python -m kindgi.pack index` over the build context with the image's pins, so the two compare
 * byte for byte. The artifact version hashes the build context.
 */
export async function pythonStaging(
  options: BuildOptions,
  inputs: PackInputs,
  staging: string,
): Promise<Result<Staged, BuildFailure>> {
  const install = await pythonInstall(options.packDir, inputs.configFile);
  if (install.kind === 'err') return install;
  const time = timePins(options.env);
  if (time.kind === 'err') return err({ code: 'config-failed', message: time.error });
  const patterns = contextIgnorePatterns(options.packDir, options.outDir, 'python');
  const files = await listBuildContext(options.packDir, patterns);
  if (files.kind === 'err') return err({ code: 'bundle-failed', message: files.error });
  const artifactVersion = await contextArtifactVersion(inputs.packVersion, options.packDir, files.value);
  const pins = { sourceDateEpoch: time.value.sourceDateEpoch, publishedAt: time.value.publishedAt, artifactVersion };
  if (!options.dryRun) {
    const indexed = await indexLocally(options, files.value, staging, pins);
    if (indexed.kind === 'err') return indexed;
  }
  const plan = pythonImagePlan({
    packId: inputs.packId,
    packVersion: inputs.packVersion,
    install: install.value.install,
    parts: inputs.parts,
    publishedAt: pins.publishedAt,
    artifactVersion,
  });
  const notes = [...install.value.notes];
  if (!time.value.fromEnvironment) notes.push('SOURCE_DATE_EPOCH is not set: publishedAt is pinned to 1970-01-01');
  if (inputs.parts.image.baseImage === undefined) {
    notes.push(
      'no image.baseImage: set it (python:3.11-slim@sha256:…) or pass --build-arg PYTHON_IMAGE=… to docker build',
    );
  }
  return ok({ plan, pins, notes });
}
