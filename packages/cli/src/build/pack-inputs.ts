import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { readKindgiConfig } from '@kindgi/indexer';
import { err, ok, type Result } from '@kindgi/protocol';
import { type ImageConfig, validateImageConfig } from '@kindgi/sdk/build';
import type { BuildLanguage } from './ignore-file.js';
import { buildEnvConflict, type ContextEntry, type ImageParts } from './image-parts.js';
import { NODE_LOCKFILES, type NodeLockfile } from './node-plan.js';

/** Why `kindgi build` rendered nothing: a stable code and a sentence naming what to fix. */
export interface BuildFailure {
  readonly code:
    | 'config-failed'
    | 'language-unsupported'
    | 'image-invalid'
    | 'lockfile-missing'
    | 'lockfile-invalid'
    | 'bundle-failed'
    | 'index-failed'
    | 'output-failed';
  readonly message: string;
}

/** The pack as `kindgi build` reads it: its identity, language and checked `image` section. */
export interface PackInputs {
  readonly packId: string;
  readonly packVersion: string;
  readonly language: BuildLanguage;
  readonly configFile: string;
  readonly parts: ImageParts;
}

const failure = (code: BuildFailure['code'], message: string): Result<never, BuildFailure> => err({ code, message });

/** Reads the pack's config and checks its `image` section, context files included. Never throws. */
export async function readPackInputs(packDir: string): Promise<Result<PackInputs, BuildFailure>> {
  const loaded = await readKindgiConfig(packDir);
  if (loaded.kind === 'err') return failure('config-failed', `${loaded.error.code}: ${loaded.error.message}`);
  const { config, location } = loaded.value;
  const language = config.language ?? 'node';
  if (language !== 'node' && language !== 'java' && language !== 'python') {
    return failure(
      'language-unsupported',
      `${language} packs have no image build: kindgi build renders images for Node, Java and Python packs`,
    );
  }
  const checked = validateImageConfig(config.image);
  if (checked.kind === 'err') return failure('image-invalid', `${location.path}: ${checked.error}`);
  const image: ImageConfig = checked.value ?? {};
  const conflict = buildEnvConflict(image);
  if (conflict !== undefined) return failure('image-invalid', `${location.path}: ${conflict}`);
  const entries = contextEntries(packDir, image);
  if (entries.kind === 'err') return entries;
  return ok({
    packId: config.pack.id,
    packVersion: config.pack.version,
    language,
    configFile: location.path,
    parts: { image, contextEntries: entries.value },
  });
}

function contextEntries(packDir: string, image: ImageConfig): Result<ContextEntry[][], BuildFailure> {
  const all: ContextEntry[][] = [];
  for (const extension of image.extensions ?? []) {
    const entries: ContextEntry[] = [];
    for (const path of extension.contextFiles ?? []) {
      const full = join(packDir, path);
      if (!existsSync(full)) {
        const message = `extension "${extension.name}": contextFiles names ${path}, which is not in ${packDir}`;
        return failure('image-invalid', message);
      }
      entries.push({ path, directory: statSync(full).isDirectory() });
    }
    all.push(entries);
  }
  return ok(all);
}

/** The lockfile the image installs from: exactly one of npm's or pnpm's. */
export function findNodeLockfile(packDir: string): Result<NodeLockfile, BuildFailure> {
  const found = (Object.keys(NODE_LOCKFILES) as NodeLockfile[]).filter((name) => existsSync(join(packDir, name)));
  if (found.length === 1) return ok(found[0] as NodeLockfile);
  if (found.length > 1) {
    return failure(
      'lockfile-missing',
      `${packDir} has both ${found.join(' and ')}: keep the one your package manager writes`,
    );
  }
  const hint = existsSync(join(packDir, 'yarn.lock')) ? ' (yarn.lock is not supported yet)' : '';
  return failure(
    'lockfile-missing',
    `${packDir} has no package-lock.json or pnpm-lock.yaml${hint}: the image installs exactly what a lockfile pins (run npm install or pnpm install first)`,
  );
}
