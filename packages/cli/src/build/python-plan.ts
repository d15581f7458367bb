import {
  buildEnvSteps,
  extensionSteps,
  type ImageParts,
  installStep,
  renderedHeader,
  systemPackagesStep,
} from './image-parts.js';
import type { ImagePlan, Stage, Step } from './plan.js';
import { copyArgs, ref, shellQuote } from './shell.js';

/** The image's default Python base, pinned by a digest placeholder the user replaces (docs/python.md). */
export const PYTHON_IMAGE_PLACEHOLDER =
  'python:3.11-slim@sha256:SET-THE-DIGEST-image.baseImage-or-build-arg-PYTHON_IMAGE';

/** The lockfile a Python pack's image installs from: pip's own format, hash-pinned. */
export const PYTHON_LOCKFILE = 'requirements.txt';

// Every stage's WORKDIR is /app: the virtualenv is /app/.venv and the pack /app/pack in each, so the
// virtualenv's absolute paths (its scripts' shebangs, pyvenv.cfg) hold in the stages it is copied to.
const VENV = '/app/.venv';
const PACK = '/app/pack';
const PIP = '.venv/bin/pip install --no-cache-dir --disable-pip-version-check';

/** What the build stage installs into the virtualenv: the lockfile, or the pyproject's ranges. */
export type PythonInstall =
  | { readonly kind: 'lockfile' }
  /** No lockfile: `[project].dependencies` as written (with `kindgi` added when they don't name it). */
  | { readonly kind: 'ranges'; readonly requirements: readonly string[] };

/** What a Python pack's plan is rendered from. */
export interface PythonPlanInput {
  readonly packId: string;
  readonly packVersion: string;
  readonly install: PythonInstall;
  readonly parts: ImageParts;
  readonly publishedAt: string;
  readonly artifactVersion: string;
}

function installCommand(install: PythonInstall): { command: string; what: string } {
  const venv = 'python -m venv .venv';
  if (install.kind === 'lockfile') {
    // --require-hashes: every package, dependencies included, must be pinned with its hash, or pip stops.
    return {
      command: `${venv} && ${PIP} --require-hashes -r ${PYTHON_LOCKFILE}`,
      what: `the install (${PYTHON_LOCKFILE})`,
    };
  }
  const names = install.requirements.map(shellQuote).join(' ');
  return { command: `${venv} && ${PIP} ${names}`, what: 'the install (pyproject.toml [project].dependencies)' };
}

function buildStage(input: PythonPlanInput): Stage {
  const { image } = input.parts;
  const { command, what } = installCommand(input.install);
  const steps: Step[] = [
    { instruction: 'WORKDIR', args: '/app' },
    ...buildEnvSteps(image),
    ...systemPackagesStep(image),
    ...(input.install.kind === 'lockfile'
      ? [{ instruction: 'COPY', args: copyArgs([PYTHON_LOCKFILE], './') } satisfies Step]
      : []),
    installStep(image, command, what),
    // The virtualenv first on PATH: `python` and its scripts in postInstall are the pack's.
    { instruction: 'ENV', args: `PATH="${VENV}/bin:${ref('PATH')}"`, summary: `PATH (${VENV}/bin first)` },
    { instruction: 'WORKDIR', args: PACK },
    ...extensionSteps(input.parts),
    { instruction: 'COPY', args: '. .', summary: 'the pack folder (Containerfile.dockerignore leaves out the rest)' },
  ];
  return {
    name: 'build',
    from: ref('PYTHON_IMAGE'),
    comment: 'the virtualenv (the kindgi SDK and the pack dependencies) and the pack folder.',
    steps,
  };
}

/** The two COPY lines that give a stage the build stage's virtualenv and pack folder. */
function fromBuild(): Step[] {
  return [
    { instruction: 'COPY', args: copyArgs([VENV], './.venv', 'build') },
    { instruction: 'COPY', args: copyArgs([PACK], './pack', 'build') },
  ];
}

function indexerStage(): Stage {
  const index = `.venv/bin/python -m kindgi.pack index --pack-dir pack --output index.json --published-at "${ref('PUBLISHED_AT')}" --artifact-version "${ref('ARTIFACT_VERSION')}"`;
  return {
    name: 'indexer',
    from: ref('PYTHON_IMAGE'),
    comment: 'python -m kindgi.pack index over the pack, with the pins (no build environment, no secrets).',
    steps: [
      { instruction: 'ARG', args: 'PUBLISHED_AT' },
      { instruction: 'ARG', args: 'ARTIFACT_VERSION' },
      { instruction: 'WORKDIR', args: '/app' },
      ...fromBuild(),
      { instruction: 'RUN', args: index, summary: 'python -m kindgi.pack index: /app/index.json' },
    ],
  };
}

function runtimeStage(input: PythonPlanInput): Stage {
  const cmd = [`${VENV}/bin/python`, '-m', 'kindgi.pack', 'serve', '--index', '/app/index.json'];
  const steps: Step[] = [
    ...systemPackagesStep(input.parts.image),
    { instruction: 'WORKDIR', args: '/app' },
    ...fromBuild(),
    { instruction: 'COPY', args: copyArgs(['/app/index.json'], './index.json', 'indexer') },
    { instruction: 'ENV', args: 'PORT=8080' },
    { instruction: 'EXPOSE', args: '8080' },
    // The slim Python images have no unprivileged account: a numeric one, which owns nothing in /app.
    { instruction: 'USER', args: '65532:65532' },
    { instruction: 'CMD', args: JSON.stringify([...cmd, '--module-root', PACK]) },
  ];
  return {
    name: 'runtime',
    from: ref('PYTHON_IMAGE'),
    comment: 'the virtualenv, the pack folder and the index; no build environment, no secrets.',
    steps,
  };
}

/** A Python pack's image: build (virtualenv + pack), indexer and runtime stages (docs/python.md). */
export function pythonImagePlan(input: PythonPlanInput): ImagePlan {
  const { image } = input.parts;
  return {
    header: [
      ...renderedHeader(input.packId, input.packVersion, image),
      'Every stage starts from PYTHON_IMAGE, pinned by digest: image.baseImage, or --build-arg PYTHON_IMAGE=….',
      'PUBLISHED_AT and ARTIFACT_VERSION pin index.json: the image indexes exactly as `kindgi build` did.',
    ],
    args: [
      { instruction: 'ARG', args: `PYTHON_IMAGE=${image.baseImage ?? PYTHON_IMAGE_PLACEHOLDER}` },
      { instruction: 'ARG', args: `PUBLISHED_AT=${input.publishedAt}` },
      { instruction: 'ARG', args: `ARTIFACT_VERSION=${input.artifactVersion}` },
    ],
    stages: [buildStage(input), indexerStage(), runtimeStage(input)],
  };
}
