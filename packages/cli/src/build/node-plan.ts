import {
  buildEnvSteps,
  extensionSteps,
  type ImageParts,
  installStep,
  renderedHeader,
  systemPackagesStep,
} from './image-parts.js';
import type { ImagePlan, Stage, Step } from './plan.js';
import { copyArgs, ref } from './shell.js';

/** The lockfiles `kindgi build` installs from, and the install that honours each. */
export const NODE_LOCKFILES = {
  'package-lock.json': { command: 'npm ci', manager: 'npm' },
  'pnpm-lock.yaml': { command: 'corepack enable pnpm && pnpm install --frozen-lockfile', manager: 'pnpm' },
} as const;
export type NodeLockfile = keyof typeof NODE_LOCKFILES;

/** The image's default Node base, pinned by a digest placeholder the user replaces (docs/pack-image.md). */
export const NODE_IMAGE_PLACEHOLDER = 'node:24-slim@sha256:SET-THE-DIGEST-image.baseImage-or-build-arg-NODE_IMAGE';

/** Where the build stage bundles to, inside /src (the ignore file keeps `.kindgi` out of the context). */
export const IMAGE_BUNDLE_DIR = '.kindgi/image';
const RUNTIME = 'node_modules/@kindgi/handler-runtime/dist';

/** What a Node pack's plan is rendered from. */
export interface NodePlanInput {
  readonly packId: string;
  readonly packVersion: string;
  readonly lockfile: NodeLockfile;
  /** The pack's `.npmrc` goes with the lockfile (a private registry; its token a secret, not a file). */
  readonly npmrc: boolean;
  readonly parts: ImageParts;
  readonly sourceDateEpoch: string;
  readonly artifactVersion: string;
}

function buildStage(input: NodePlanInput): Stage {
  const { image } = input.parts;
  const manifest = ['package.json', input.lockfile, ...(input.npmrc ? ['.npmrc'] : [])];
  const steps: Step[] = [
    { instruction: 'WORKDIR', args: '/src' },
    ...buildEnvSteps(image),
    ...systemPackagesStep(image),
    { instruction: 'COPY', args: copyArgs(manifest, './'), summary: manifest.join(', ') },
    installStep(image, NODE_LOCKFILES[input.lockfile].command, `the install (${input.lockfile})`),
    ...extensionSteps(input.parts),
    { instruction: 'COPY', args: '. .', summary: 'the pack folder (Containerfile.dockerignore leaves out the rest)' },
    {
      instruction: 'RUN',
      args: `node ${RUNTIME}/kindgi-pack-build/main.js --pack-dir . --out-dir ${IMAGE_BUNDLE_DIR}`,
      summary: `kindgi-pack-build: the bundles, kindgi.config.mjs and bundle-map.json into /src/${IMAGE_BUNDLE_DIR}`,
    },
  ];
  return { name: 'build', from: ref('NODE_IMAGE'), comment: 'the sources, their install and the bundles.', steps };
}

function indexerStage(): Stage {
  const steps: Step[] = [
    { instruction: 'ARG', args: 'SOURCE_DATE_EPOCH' },
    { instruction: 'ARG', args: 'ARTIFACT_VERSION' },
    {
      instruction: 'ENV',
      args: `SOURCE_DATE_EPOCH=${ref('SOURCE_DATE_EPOCH')}`,
      summary: 'SOURCE_DATE_EPOCH (the pin)',
    },
    { instruction: 'WORKDIR', args: '/app' },
    { instruction: 'COPY', args: copyArgs([`/src/${RUNTIME}/kindgi-index.mjs`], './', 'build') },
    { instruction: 'COPY', args: copyArgs([`/src/${IMAGE_BUNDLE_DIR}`], './pack', 'build') },
    {
      instruction: 'RUN',
      args: `node kindgi-index.mjs --pack-dir pack --bundle-map pack/bundle-map.json --module-root pack --output index.json --artifact-version "${ref('ARTIFACT_VERSION')}"`,
    },
  ];
  return {
    name: 'indexer',
    from: ref('NODE_IMAGE'),
    comment: 'the indexer bundle over the bundles (no sources, no node_modules, no loader).',
    steps,
  };
}

function runtimeStage(input: NodePlanInput): Stage {
  const cmd = ['node', 'kindgi-pack-service.mjs', '--index', 'index.json', '--bundle-map', 'pack/bundle-map.json'];
  const steps: Step[] = [
    ...systemPackagesStep(input.parts.image),
    { instruction: 'WORKDIR', args: '/app' },
    { instruction: 'COPY', args: copyArgs([`/src/${RUNTIME}/kindgi-pack-service.mjs`], './', 'build') },
    { instruction: 'COPY', args: copyArgs([`/src/${IMAGE_BUNDLE_DIR}`], './pack', 'build') },
    { instruction: 'COPY', args: copyArgs(['/app/index.json'], './index.json', 'indexer') },
    { instruction: 'ENV', args: 'PORT=8080' },
    { instruction: 'EXPOSE', args: '8080' },
    { instruction: 'USER', args: 'node' },
    { instruction: 'CMD', args: JSON.stringify([...cmd, '--module-root', 'pack']) },
  ];
  return {
    name: 'runtime',
    from: ref('NODE_IMAGE'),
    comment: 'the service bundle, the bundles and the index; no build environment, no secrets.',
    steps,
  };
}

/** A TypeScript (or JavaScript) pack's image: build, indexer and runtime stages (docs/pack-image.md). */
export function nodeImagePlan(input: NodePlanInput): ImagePlan {
  const { image } = input.parts;
  return {
    header: [
      ...renderedHeader(input.packId, input.packVersion, image),
      'Every stage starts from NODE_IMAGE, pinned by digest: image.baseImage, or --build-arg NODE_IMAGE=….',
      'SOURCE_DATE_EPOCH and ARTIFACT_VERSION pin index.json: the image indexes exactly as `kindgi build` did.',
    ],
    args: [
      { instruction: 'ARG', args: `NODE_IMAGE=${image.baseImage ?? NODE_IMAGE_PLACEHOLDER}` },
      { instruction: 'ARG', args: `SOURCE_DATE_EPOCH=${input.sourceDateEpoch}` },
      { instruction: 'ARG', args: `ARTIFACT_VERSION=${input.artifactVersion}` },
    ],
    stages: [buildStage(input), indexerStage(), runtimeStage(input)],
  };
}
