import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readdir, readFile, stat } from 'node:fs/promises';
import { delimiter, dirname, join } from 'node:path';
import { compareCodeUnits, describeThrown, err, messageOf, ok, type Result } from '@kindgi/protocol';
import { contextFilter } from './ignore-file.js';

// Bounds on what `kindgi build` copies and hashes: a pack folder is code, not a data store.
const MAX_CONTEXT_FILES = 20_000;
const MAX_CONTEXT_BYTES = 512 * 1024 * 1024;
const MAX_OUTPUT = 4 * 1024 * 1024;

/**
 * The files of the pack's build context (the folder less what `patterns` leave out, as the builder
 * sends it), relative and sorted. Symbolic links are not followed.
 */
export async function listBuildContext(
  packDir: string,
  patterns: readonly string[],
): Promise<Result<string[], string>> {
  const keep = contextFilter(patterns);
  const files: string[] = [];
  let bytes = 0;
  const walk = async (dir: string): Promise<string | undefined> => {
    for (const entry of await readdir(join(packDir, dir), { withFileTypes: true })) {
      const path = dir === '' ? entry.name : `${dir}/${entry.name}`;
      if (!keep(path)) continue;
      if (entry.isDirectory()) {
        const failed = await walk(path);
        if (failed !== undefined) return failed;
      } else if (entry.isFile()) {
        bytes += (await stat(join(packDir, path))).size;
        files.push(path);
        if (files.length > MAX_CONTEXT_FILES || bytes > MAX_CONTEXT_BYTES) {
          return `the pack folder holds over ${MAX_CONTEXT_FILES} files or ${MAX_CONTEXT_BYTES} bytes for the image`;
        }
      }
    }
    return undefined;
  };
  try {
    const failed = await walk('');
    if (failed !== undefined) return err(failed);
  } catch (cause) {
    return err(`could not read the pack folder: ${describeThrown(cause)}`);
  }
  return ok(files.sort(compareCodeUnits));
}

/** Copies `files` (relative to `from`) to the same paths under `to`. */
export async function copyFiles(from: string, to: string, files: readonly string[]): Promise<void> {
  for (const file of files) {
    await mkdir(dirname(join(to, file)), { recursive: true });
    await copyFile(join(from, file), join(to, file));
  }
}

/**
 * The artifact version of a Python pack's build: `<pack version>+<12 hex>`, the hex a SHA-256 over every
 * file of the build context (sources, pyproject.toml, the lockfile). It changes when what the image
 * installs or serves changes, and needs no clock.
 */
export async function contextArtifactVersion(
  packVersion: string,
  contextDir: string,
  files: readonly string[],
): Promise<string> {
  const hash = createHash('sha256');
  for (const file of files) {
    const bytes = await readFile(join(contextDir, file));
    hash.update(`${file}\0${bytes.length}\0`).update(bytes);
  }
  const safeVersion = packVersion.replace(/[^0-9A-Za-z.+-]/g, '-');
  return `${safeVersion}+${hash.digest('hex').slice(0, 12)}`;
}

/**
 * The interpreter `kindgi build` indexes with: the pack's own virtualenv (`.venv`) when it has one, else
 * `python3` on PATH (as `kindgi dev` runs it). Either must hold the kindgi SDK.
 */
export function localPython(packDir: string, path: string | undefined): string {
  const own = join(packDir, '.venv', 'bin', 'python');
  if (existsSync(own)) return own;
  for (const dir of (path ?? '').split(delimiter)) {
    if (dir !== '' && existsSync(join(dir, 'python3'))) return join(dir, 'python3');
  }
  return 'python3';
}

/**
 * Runs the indexer stage's RUN line in `stageDir` (holding `pack/`): the same command, flags and
 * environment (the stage's two ARGs and a PATH). Writes `stageDir/index.json`.
 */
export function runPythonIndexerStage(
  python: string,
  stageDir: string,
  pins: { publishedAt: string; artifactVersion: string; path: string },
): Promise<Result<void, string>> {
  const args = ['-m', 'kindgi.pack', 'index', '--pack-dir', 'pack', '--output', 'index.json'];
  args.push('--published-at', pins.publishedAt, '--artifact-version', pins.artifactVersion);
  const env = { PUBLISHED_AT: pins.publishedAt, ARTIFACT_VERSION: pins.artifactVersion, PATH: pins.path };
  return new Promise((resolve) => {
    execFile(python, args, { cwd: stageDir, env, maxBuffer: MAX_OUTPUT, encoding: 'utf8' }, (error, _out, stderr) => {
      if (!error) return resolve(ok(undefined));
      resolve(err(`${python} -m kindgi.pack index: ${stderr.trim() || messageOf(error)}`));
    });
  });
}
