import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const PACKAGES = fileURLToPath(new URL('../../../', import.meta.url));

/** The packages a pack's consumer installs: the facade's closure, plus the test kit (plain-Node import). */
const CONSUMED = [
  '@kindgi/handler-runtime',
  '@kindgi/call-runner',
  '@kindgi/indexer',
  '@kindgi/log',
  '@kindgi/pack-service',
  '@kindgi/protocol',
  '@kindgi/sdk',
  '@kindgi/bindings',
  '@kindgi/testing',
];

/** A consumer's TypeScript pack: one tool, written with the SDK and Zod. */
export const PACK_FILES: Record<string, string> = {
  'kindgi.config.ts': `import { defineConfig } from '@kindgi/sdk';
export default defineConfig({ pack: { id: 'calc', version: '1.0.0' } });
`,
  'tools/add/index.ts': `import { defineTool } from '@kindgi/sdk';
import { z } from 'zod';
export default defineTool({
  id: 'calc.add',
  description: 'Adds two numbers.',
  inputZod: z.object({ a: z.number(), b: z.number() }),
  outputZod: z.object({ sum: z.number() }),
  handler: async ({ a, b }) => ({ sum: a + b }),
});
`,
};

interface Manifest {
  name: string;
  exports?: Record<string, unknown>;
  bin?: Record<string, string>;
  engines?: { node?: string };
  repository?: unknown;
}

/** The packed public packages and what is wrong with them. */
export interface Packed {
  manifests: Manifest[];
  /** `<name>: <problem>` lines; empty when every tarball is as published packages must be. */
  problems: string[];
  /** Every public package's name, from the workspace, sorted. */
  expectedNames: string[];
  /** A consumer's package.json installing `names` (default: the pack consumer's set) from the tarballs. */
  consumerManifest(manager: 'npm' | 'pnpm', names?: readonly string[]): Record<string, unknown>;
  pnpmWorkspace(): string;
}

/** The environment a user's shell would give a package manager: no variables of the test runner's pnpm. */
export function consumerEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ['PATH', 'HOME', 'TMPDIR', 'LANG']) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

function targetsOf(value: unknown, key: string, problems: string[]): string[] {
  if (typeof value === 'string') return [value];
  if (typeof value !== 'object' || value === null) return [];
  const conditions = value as Record<string, unknown>;
  if ('source' in conditions) problems.push(`export ${key} keeps the source condition`);
  if (!('types' in conditions)) problems.push(`export ${key} has no types`);
  return Object.values(conditions).flatMap((v) => targetsOf(v, key, problems));
}

/** The workspace manifest's exports as they must be published: the same, without `source` and `./bench`. */
function publishedExports(workspace: Manifest): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(workspace.exports ?? {})) {
    if (key === './bench') continue;
    out[key] =
      typeof value === 'object' && value !== null
        ? Object.fromEntries(Object.entries(value).filter(([condition]) => condition !== 'source'))
        : value;
  }
  return out;
}

function check(manifest: Manifest, files: Set<string>, workspace: Manifest): string[] {
  const problems: string[] = [];
  // publishConfig.exports repeats exports; a new export missing from it would silently not be published.
  if (JSON.stringify(manifest.exports) !== JSON.stringify(publishedExports(workspace))) {
    problems.push('publishConfig.exports is not exports without the source condition');
  }
  if (!manifest.engines?.node) problems.push('no engines.node');
  if (!manifest.repository) problems.push('no repository');
  if (!files.has('README.md')) problems.push('no README.md');
  const targets: string[] = Object.values(manifest.bin ?? {});
  for (const [key, value] of Object.entries(manifest.exports ?? {})) {
    if (key === './bench') problems.push('exports ./bench');
    targets.push(...targetsOf(value, key, problems));
  }
  for (const target of targets) {
    if (!files.has(target.replace(/^\.\//, ''))) problems.push(`${target} is not in the tarball`);
  }
  return problems.map((problem) => `${manifest.name}: ${problem}`);
}

async function packOne(
  dir: string,
  destination: string,
): Promise<{ manifest: Manifest; tarball: string; problems: string[] }> {
  const { stdout } = await run('pnpm', ['pack', '--pack-destination', destination, '--json'], { cwd: dir });
  const tarball = (JSON.parse(stdout) as { filename: string }).filename;
  const listing = (await run('tar', ['-tzf', tarball])).stdout.split('\n').filter(Boolean);
  const files = new Set(listing.map((path) => path.replace(/^package\//, '')));
  const manifest = JSON.parse((await run('tar', ['-xOzf', tarball, 'package/package.json'])).stdout) as Manifest;
  const workspace = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;
  return { manifest, tarball, problems: check(manifest, files, workspace) };
}

/** Packs every public workspace package with `pnpm pack` (which applies `publishConfig`) into `destination`. */
export async function packAll(destination: string): Promise<Packed> {
  mkdirSync(destination, { recursive: true });
  const dirs = readdirSync(PACKAGES)
    .map((name) => join(PACKAGES, name))
    .filter((dir) => {
      try {
        return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { private?: boolean }).private !== true;
      } catch {
        return false;
      }
    });
  const results = [];
  // Two at a time: the machine is shared.
  for (let i = 0; i < dirs.length; i += 2)
    results.push(...(await Promise.all(dirs.slice(i, i + 2).map((dir) => packOne(dir, destination)))));
  const tarballOf = new Map(results.map((r) => [r.manifest.name, r.tarball]));
  const fileSpec = (names: readonly string[]) => Object.fromEntries(names.map((n) => [n, `file:${tarballOf.get(n)}`]));
  const consumed = fileSpec(CONSUMED);
  return {
    manifests: results.map((r) => r.manifest),
    problems: results.flatMap((r) => r.problems),
    expectedNames: dirs
      .map((dir) => (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest).name)
      .sort(),
    consumerManifest(manager, names = CONSUMED) {
      const dependencies = { ...fileSpec(names), zod: '4.6.7' };
      const base = { name: `consumer-${manager}`, private: true, type: 'module', dependencies };
      // npm: a dependency of a tarball on `@kindgi/x@0.1.0` is pointed at the tarball given at the top.
      return manager === 'npm' ? { ...base, overrides: Object.fromEntries(names.map((n) => [n, `$${n}`])) } : base;
    },
    pnpmWorkspace() {
      const overrides = CONSUMED.map((name) => `  '${name}': '${consumed[name]}'`).join('\n');
      return `overrides:\n${overrides}\nallowBuilds:\n  esbuild: true\n`;
    },
  };
}
