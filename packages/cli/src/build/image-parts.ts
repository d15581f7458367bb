import { compareCodeUnits } from '@kindgi/protocol';
import type { BuildExtension, ImageConfig } from '@kindgi/sdk/build';
import type { Step } from './plan.js';
import { copyArgs, envValue, namedFailure, shellQuote, withSecrets } from './shell.js';

/** A contextFile of an extension, checked to exist in the pack: a folder is copied as a folder. */
export interface ContextEntry {
  readonly path: string;
  readonly directory: boolean;
}

/** What the stages render from a pack's `image` section, already checked (`validateImageConfig`). */
export interface ImageParts {
  readonly image: ImageConfig;
  /** Each extension's context files as found in the pack, by the extension's position in `extensions`. */
  readonly contextEntries: readonly (readonly ContextEntry[])[];
}

function extensions(image: ImageConfig): readonly BuildExtension[] {
  return image.extensions ?? [];
}

/**
 * The first lines of every rendered Containerfile: where it came from, and the `docker build` command that
 * builds it (with a `--secret` flag per secret the config names).
 */
export function renderedHeader(packId: string, packVersion: string, image: ImageConfig): string[] {
  const secretFlags = secretNames(image)
    .map((name) => ` --secret id=${name},env=${name}`)
    .join('');
  return [
    `Rendered by \`kindgi build\` from the config of pack ${packId} ${packVersion}: edit the config, not this file.`,
    'The build context is the pack folder, and Containerfile.dockerignore (beside this file) its ignore file:',
    `  docker build -f <this file>${secretFlags} <pack folder>`,
  ];
}

/** The secrets' names, in the order the config lists them. */
export function secretNames(image: ImageConfig): readonly string[] {
  return image.secretEnv ?? [];
}

/**
 * The one `apt-get` step for `image.systemPackages` and every extension's, deduplicated and sorted (so the
 * line does not change with the order extensions are listed in); its failure names where they came from.
 */
export function systemPackagesStep(image: ImageConfig): Step[] {
  const from = new Map<string, string[]>();
  const add = (names: readonly string[] | undefined, source: string) => {
    for (const name of names ?? []) from.set(name, [...(from.get(name) ?? []), source]);
  };
  add(image.systemPackages, 'image.systemPackages');
  for (const extension of extensions(image)) add(extension.systemPackages, `extension "${extension.name}"`);
  if (from.size === 0) return [];
  const names = [...from.keys()].sort(compareCodeUnits);
  const sources = [...new Set([...from.values()].flat())].join(', ');
  const install = `apt-get update && apt-get install -y --no-install-recommends ${names.join(' ')} && rm -rf /var/lib/apt/lists/*`;
  return [
    {
      instruction: 'RUN',
      args: namedFailure(`{ ${install}; }`, `installing system packages (${sources})`),
      summary: `apt-get install ${names.join(' ')} (${sources})`,
    },
  ];
}

/**
 * `ENV` lines for the build stage: `image.buildEnv` and every extension's, sorted by name. The same name
 * with two different values is a conflict the caller reports (`buildEnvConflict`).
 */
export function buildEnvSteps(image: ImageConfig): Step[] {
  const merged = mergedBuildEnv(image);
  return [...merged.keys()].sort(compareCodeUnits).map((name) => ({
    instruction: 'ENV',
    args: `${name}=${envValue(merged.get(name) ?? '')}`,
    summary: `${name} (buildEnv)`,
  }));
}

function mergedBuildEnv(image: ImageConfig): Map<string, string> {
  const merged = new Map<string, string>(Object.entries(image.buildEnv ?? {}));
  for (const extension of extensions(image)) {
    for (const [name, value] of Object.entries(extension.buildEnv ?? {})) {
      if (!merged.has(name)) merged.set(name, value);
    }
  }
  return merged;
}

/** Why the extensions' build environments cannot be merged, naming the extension; `undefined` when they can. */
export function buildEnvConflict(image: ImageConfig): string | undefined {
  const owners = new Map<string, { value: string; owner: string }>();
  for (const [name, value] of Object.entries(image.buildEnv ?? {}))
    owners.set(name, { value, owner: 'image.buildEnv' });
  for (const extension of extensions(image)) {
    for (const [name, value] of Object.entries(extension.buildEnv ?? {})) {
      const earlier = owners.get(name);
      if (earlier && earlier.value !== value) {
        return `extension "${extension.name}": buildEnv.${name} differs from ${earlier.owner}'s value`;
      }
      if (!earlier) owners.set(name, { value, owner: `extension "${extension.name}"` });
    }
    if (secretNames(image).some((secret) => extension.buildEnv?.[secret] !== undefined)) {
      return `extension "${extension.name}": its buildEnv sets a name image.secretEnv declares a secret`;
    }
  }
  return undefined;
}

/** The install step, with the build secrets mounted; its failure says it was the install. */
export function installStep(image: ImageConfig, command: string, what: string): Step {
  return {
    instruction: 'RUN',
    args: withSecrets(secretNames(image), namedFailure(command, what)),
    summary: `${command}${secretSummary(image)}`,
  };
}

function secretSummary(image: ImageConfig): string {
  const names = secretNames(image);
  return names.length === 0 ? '' : ` (secret mounts: ${names.join(', ')})`;
}

/**
 * Each extension in config order: COPY of its context files, then each `postInstall` command as a RUN of
 * its own whose failure names the extension and the command's position.
 */
export function extensionSteps(parts: ImageParts): Step[] {
  const steps: Step[] = [];
  extensions(parts.image).forEach((extension, position) => {
    for (const entry of parts.contextEntries[position] ?? []) {
      const destination = entry.directory ? `${entry.path}/` : entry.path;
      steps.push({
        instruction: 'COPY',
        args: copyArgs([entry.path], destination),
        summary: `${entry.path} (extension "${extension.name}")`,
      });
    }
    (extension.postInstall ?? []).forEach((command, index) => {
      const what = `extension "${extension.name}" (postInstall[${index}])`;
      steps.push({
        instruction: 'RUN',
        args: withSecrets(secretNames(parts.image), namedFailure(`sh -c ${shellQuote(command)}`, what)),
        summary: `${command} (extension "${extension.name}")${secretSummary(parts.image)}`,
      });
    });
  });
  return steps;
}
