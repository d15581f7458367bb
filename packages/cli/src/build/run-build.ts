import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { buildPack } from '@kindgi/indexer/build';
import { compareCodeUnits, describeThrown, err, ok, type Result } from '@kindgi/protocol';
import { type BuildLanguage, renderIgnoreFile } from './ignore-file.js';
import { indexerBundle, runIndexerStage } from './index-runner.js';
import { javaImagePlan } from './java-plan.js';
import { nodeImagePlan } from './node-plan.js';
import { type BuildFailure, findNodeLockfile, type PackInputs, readPackInputs } from './pack-inputs.js';
import { bundleArtifactVersion, timePins } from './pins.js';
import { type ImagePlan, type LayerList, layerList, renderContainerfile } from './plan.js';
import { pythonStaging } from './python-staging.js';

/** What `kindgi build` is asked to do. */
export interface BuildOptions {
  readonly packDir: string;
  readonly outDir: string;
  /** Render and print; write nothing in the pack or the output folder. */
  readonly dryRun: boolean;
  /** `SOURCE_DATE_EPOCH` is read from here. */
  readonly env: NodeJS.ProcessEnv;
}

/** What `kindgi build` did (the `--json` document). */
export interface BuildReport {
  readonly language: BuildLanguage;
  readonly packId: string;
  readonly packVersion: string;
  readonly outDir: string;
  readonly dryRun: boolean;
  readonly pins: { sourceDateEpoch: string; publishedAt: string; artifactVersion: string };
  readonly containerfile: string;
  readonly layers: LayerList;
  /** The files written (or, on a dry run, that would be), relative to `outDir`, sorted. */
  readonly files: readonly string[];
  /** Things to fix before `docker build` works, for people (stderr). */
  readonly notes: readonly string[];
}

/** What a language's staging made: the image plan, the pins and the notes for people. */
export interface Staged {
  readonly plan: ImagePlan;
  readonly pins: BuildReport['pins'];
  readonly notes: string[];
}

/** The files `kindgi build` owns in its output folder: only these are replaced. */
const OUTPUTS = ['Containerfile', 'Containerfile.dockerignore', 'index.json', 'pack'];

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)).split(sep).join('/'))
    .sort(compareCodeUnits);
}

function checkOutDir(packDir: string, outDir: string): Result<void, BuildFailure> {
  const fromOut = relative(outDir, packDir);
  // The output's `pack/` is replaced on every build: an output that is the pack (or holds it) is refused.
  if (fromOut === '' || (!fromOut.startsWith('..') && !fromOut.startsWith(sep))) {
    return err({ code: 'output-failed', message: `--out ${outDir} holds the pack itself: choose a folder of its own` });
  }
  return ok(undefined);
}

function handlerRuntimeNote(packDir: string): string[] {
  try {
    const manifest = JSON.parse(readFileSync(join(packDir, 'package.json'), 'utf8')) as Record<string, unknown>;
    const listed = ['dependencies', 'devDependencies'].some(
      (key) => (manifest[key] as Record<string, unknown> | undefined)?.['@kindgi/handler-runtime'] !== undefined,
    );
    if (listed) return [];
  } catch {
    return ['the pack has no readable package.json: the image installs from package.json and its lockfile'];
  }
  return [
    "package.json lists no @kindgi/handler-runtime: the image's build stage runs its kindgi-pack-build and copies its kindgi-index.mjs and kindgi-pack-service.mjs; add it to devDependencies",
  ];
}

async function nodeStaging(
  options: BuildOptions,
  inputs: PackInputs,
  staging: string,
): Promise<Result<Staged, BuildFailure>> {
  const lockfile = findNodeLockfile(options.packDir);
  if (lockfile.kind === 'err') return lockfile;
  const time = timePins(options.env);
  if (time.kind === 'err') return err({ code: 'config-failed', message: time.error });
  const bundleDir = join(staging, 'pack');
  const built = await buildPack({ packDir: options.packDir, outDir: bundleDir });
  if (built.kind === 'err')
    return err({ code: 'bundle-failed', message: `${built.error.code}: ${built.error.message}` });
  const artifactVersion = await bundleArtifactVersion(inputs.packVersion, bundleDir, built.value.bundleMap);
  const pins = { sourceDateEpoch: time.value.sourceDateEpoch, publishedAt: time.value.publishedAt, artifactVersion };
  if (!options.dryRun) {
    const indexed = await runIndexerStage(indexerBundle(options.packDir), staging, pins);
    if (indexed.kind === 'err') return err({ code: 'index-failed', message: indexed.error });
  }
  const plan = nodeImagePlan({
    packId: inputs.packId,
    packVersion: inputs.packVersion,
    lockfile: lockfile.value,
    npmrc: existsSync(join(options.packDir, '.npmrc')),
    parts: inputs.parts,
    sourceDateEpoch: pins.sourceDateEpoch,
    artifactVersion,
  });
  const notes = handlerRuntimeNote(options.packDir);
  if (!time.value.fromEnvironment) notes.push('SOURCE_DATE_EPOCH is not set: publishedAt is pinned to 1970-01-01');
  if (inputs.parts.image.baseImage === undefined) {
    notes.push('no image.baseImage: set it (node:24-slim@sha256:…) or pass --build-arg NODE_IMAGE=… to docker build');
  }
  return ok({ plan, pins, notes });
}

function javaStaging(options: BuildOptions, inputs: PackInputs): Result<Staged, BuildFailure> {
  if (!existsSync(join(options.packDir, 'pom.xml'))) {
    return err({ code: 'config-failed', message: `${options.packDir} has no pom.xml: a Java pack builds with Maven` });
  }
  const time = timePins(options.env);
  if (time.kind === 'err') return err({ code: 'config-failed', message: time.error });
  const pins = { ...time.value, artifactVersion: inputs.packVersion };
  const wrapper = existsSync(join(options.packDir, 'mvnw')) && existsSync(join(options.packDir, '.mvn'));
  const plan = javaImagePlan({
    ...inputs,
    wrapper,
    publishedAt: pins.publishedAt,
    artifactVersion: pins.artifactVersion,
  });
  const notes = ['a Java pack is compiled and indexed in the image (Maven, Main index); kindgi build renders only'];
  if (!time.value.fromEnvironment) notes.push('SOURCE_DATE_EPOCH is not set: publishedAt is pinned to 1970-01-01');
  return ok({
    plan,
    pins: {
      sourceDateEpoch: pins.sourceDateEpoch,
      publishedAt: pins.publishedAt,
      artifactVersion: pins.artifactVersion,
    },
    notes,
  });
}

function stagingFor(options: BuildOptions, inputs: PackInputs, staging: string): Promise<Result<Staged, BuildFailure>> {
  if (inputs.language === 'node') return nodeStaging(options, inputs, staging);
  if (inputs.language === 'python') return pythonStaging(options, inputs, staging);
  return Promise.resolve(javaStaging(options, inputs));
}

async function publish(staging: string, outDir: string): Promise<void> {
  await mkdir(outDir, { recursive: true });
  for (const name of OUTPUTS) await rm(join(outDir, name), { recursive: true, force: true });
  for (const name of await readdir(staging)) await cp(join(staging, name), join(outDir, name), { recursive: true });
}

/**
 * `kindgi build`: bundles and indexes a Node pack as its image will (a Python pack: indexes it), and
 * renders the image's Containerfile and ignore file from the config's `image`; a Java pack's are rendered only. Everything is made in a
 * scratch folder and copied to `outDir` once complete (a dry run copies nothing). Never throws.
 */
export async function runBuild(options: BuildOptions): Promise<Result<BuildReport, BuildFailure>> {
  const outCheck = checkOutDir(options.packDir, options.outDir);
  if (outCheck.kind === 'err') return outCheck;
  const inputs = await readPackInputs(options.packDir);
  if (inputs.kind === 'err') return inputs;
  const staging = await mkdtemp(join(tmpdir(), 'kindgi-build-'));
  try {
    const made = await stagingFor(options, inputs.value, staging);
    if (made.kind === 'err') return made;
    const containerfile = renderContainerfile(made.value.plan);
    await writeFile(join(staging, 'Containerfile'), containerfile);
    const ignore = renderIgnoreFile(options.packDir, options.outDir, inputs.value.language);
    await writeFile(join(staging, 'Containerfile.dockerignore'), ignore);
    const files = await filesUnder(staging);
    // A dry run indexes nothing; the report still lists the index the build would write.
    if (options.dryRun && inputs.value.language !== 'java') files.push('index.json');
    files.sort(compareCodeUnits);
    if (!options.dryRun) await publish(staging, options.outDir);
    const { packId, packVersion, language } = inputs.value;
    const { pins, notes, plan } = made.value;
    return ok({
      language,
      packId,
      packVersion,
      outDir: options.outDir,
      dryRun: options.dryRun,
      pins,
      containerfile,
      layers: layerList(plan),
      files,
      notes,
    });
  } catch (cause) {
    return err({ code: 'output-failed', message: `Could not write the build: ${describeThrown(cause)}` });
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
