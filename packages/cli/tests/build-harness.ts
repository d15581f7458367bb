import { execFile } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';

export const REPO_ROOT = resolve(import.meta.dirname, '..', '..', '..');
export const CLI_MAIN = join(REPO_ROOT, 'packages', 'cli', 'dist', 'main.js');
export const EXAMPLE_PACK_DIR = join(REPO_ROOT, 'packages', 'example-pack');
export const HANDLER_RUNTIME_DIR = join(REPO_ROOT, 'packages', 'handler-runtime');
export const SOURCE_DATE_EPOCH = '1758378727';

/** What a finished `kindgi build` printed and how it exited. */
export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

const dirs: string[] = [];

/** A temporary folder removed by `removeTempDirs` (call it in afterAll). */
export function makeTempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `kindgi-${prefix}-`));
  dirs.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** Runs the real bin: `node packages/cli/dist/main.js build …`, with `env` alone plus PATH. */
export function runKindgiBuild(args: string[], cwd: string, env: Record<string, string> = {}): Promise<Ran> {
  if (!existsSync(CLI_MAIN)) throw new Error('Build @kindgi/cli first: pnpm --filter @kindgi/cli build');
  return new Promise((done) => {
    execFile(
      process.execPath,
      [CLI_MAIN, 'build', ...args],
      { cwd, env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8' },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        done({ code, stdout, stderr });
      },
    );
  });
}

/**
 * A copy of the example pack in a temp folder: its sources, a package-lock.json standing for the npm
 * install (the example pack is a workspace member and has none of its own), and its node_modules linked.
 */
export function copyExamplePack(root: string): string {
  const pack = join(root, 'pack');
  for (const part of ['package.json', 'kindgi.config.ts', 'tools', 'guardrails', 'agents', 'flows', 'lib']) {
    cpSync(join(EXAMPLE_PACK_DIR, part), join(pack, part), { recursive: true });
  }
  writeFileSync(join(pack, 'package-lock.json'), '{ "lockfileVersion": 3, "packages": {} }\n');
  symlinkSync(join(EXAMPLE_PACK_DIR, 'node_modules'), join(pack, 'node_modules'), 'dir');
  return pack;
}

/** Every file under `dir`, relative, sorted (symbolic links to folders are not followed). */
export function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)).split(sep).join('/'))
    .sort();
}

/** Every file under `dir` with its bytes, for byte-for-byte comparisons. */
export function snapshot(dir: string): Map<string, Buffer> {
  return new Map(filesUnder(dir).map((file) => [file, readFileSync(join(dir, file))]));
}

/** One stage of a rendered Containerfile: its name and its instructions (`[keyword, arguments]`). */
export interface RenderedStage {
  name: string;
  from: string;
  steps: [string, string][];
}

/** Splits a rendered Containerfile into stages (comments dropped; `kindgi build` writes one line per step). */
export function stagesOf(containerfile: string): { args: string[]; stages: RenderedStage[] } {
  const args: string[] = [];
  const stages: RenderedStage[] = [];
  for (const line of containerfile.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const space = line.indexOf(' ');
    const keyword = line.slice(0, space);
    const rest = line.slice(space + 1);
    const from = /^(\S+) AS (\S+)$/.exec(rest);
    if (keyword === 'FROM' && from) stages.push({ name: from[2] ?? '', from: from[1] ?? '', steps: [] });
    else if (stages.length === 0) args.push(`${keyword} ${rest}`);
    else stages.at(-1)?.steps.push([keyword, rest]);
  }
  return { args, stages };
}

/** The `image` section of the image pack (`copyImagePack`): every part `kindgi build` renders. */
export const IMAGE_PACK_CONFIG = `import { defineConfig } from '@kindgi/sdk';
import { defineBuildExtension, prisma } from '@kindgi/sdk/build';

const fonts = defineBuildExtension({
  name: 'fonts',
  contextFiles: ['assets/fonts'],
  systemPackages: ['fontconfig'],
  postInstall: ['fc-cache -f assets/fonts'],
  buildEnv: { FONTS_DIR: 'assets/fonts' },
});

export default defineConfig({
  pack: { id: 'acme', version: '1.4.0' },
  env: { required: ['ACME_API_BASE'], optional: ['LOG_LEVEL'] },
  image: {
    systemPackages: ['openssl', 'ca-certificates'],
    buildEnv: { NODE_OPTIONS: '--max-old-space-size=2048', PUPPETEER_SKIP_DOWNLOAD: '1' },
    secretEnv: ['NPM_TOKEN'],
    extensions: [prisma({ schema: 'prisma/schema.prisma' }), fonts],
  },
});
`;

/** The example pack with an `image` section: system packages, buildEnv, prisma(), a custom extension, a secret. */
export function copyImagePack(root: string, config = IMAGE_PACK_CONFIG): string {
  const pack = copyExamplePack(root);
  writeFileSync(join(pack, 'kindgi.config.ts'), config);
  mkdirSync(join(pack, 'prisma'));
  writeFileSync(join(pack, 'prisma', 'schema.prisma'), 'generator client {\n  provider = "prisma-client-js"\n}\n');
  mkdirSync(join(pack, 'assets', 'fonts'), { recursive: true });
  writeFileSync(join(pack, 'assets', 'fonts', 'README.txt'), 'fonts for the reports\n');
  // Never in the image's context: the ignore file leaves .env* out.
  writeFileSync(join(pack, '.env'), 'ACME_API_BASE=https://local.invalid/\n');
  return pack;
}
