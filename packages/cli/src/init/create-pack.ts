import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { err, messageOf, ok, type Result } from '@kindgi/protocol';
import type { CliFailure } from '../cli/output.js';
import { javaPackageOf } from './pack-id.js';
import { type InitLanguage, substitute, templateFiles } from './templates.js';
import { JAVA_SDK_VERSION, TS_PACK_DEPENDENCIES } from './versions.js';

/** What `kindgi init` creates. */
export interface CreatePackOptions {
  /** The pack's folder (absolute): absent or empty. */
  readonly dir: string;
  readonly packId: string;
  readonly language: InitLanguage;
  /** The CLI version the pack pins (`cli` in its config): this CLI's. */
  readonly cliVersion: string;
}

/** A created pack: its folder and the files written, relative to it. */
export interface CreatedPack {
  readonly dir: string;
  readonly packId: string;
  readonly language: InitLanguage;
  readonly files: readonly string[];
}

function placeholders(options: CreatePackOptions): Record<string, string> {
  const javaPackage = javaPackageOf(options.packId);
  return {
    PACK_ID: options.packId,
    CLI_VERSION: options.cliVersion,
    SDK_VERSION: options.cliVersion,
    JAVA_PACKAGE: javaPackage,
    JAVA_PATH: javaPackage.replace(/\./g, '/'),
    JAVA_SDK_VERSION,
    ...TS_PACK_DEPENDENCIES,
  };
}

/** `undefined` when `dir` may receive a pack (absent, or an empty folder); else why not. */
async function targetProblem(dir: string): Promise<CliFailure | undefined> {
  let isDirectory: boolean;
  try {
    isDirectory = (await stat(dir)).isDirectory();
  } catch {
    return undefined;
  }
  if (!isDirectory) return { code: 'target-not-a-folder', message: `${dir} exists and is not a folder` };
  if ((await readdir(dir)).length > 0) {
    return {
      code: 'target-not-empty',
      message: `${dir} is not empty: kindgi init creates a pack in a new or empty folder`,
    };
  }
  return undefined;
}

async function writeFiles(staging: string, options: CreatePackOptions): Promise<string[]> {
  const values = placeholders(options);
  const written: string[] = [];
  for (const file of await templateFiles(options.language)) {
    const target = substitute(file.target, values);
    const path = join(staging, target);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, substitute(await readFile(file.source, 'utf8'), values));
    if (file.executable) await chmod(path, 0o755);
    written.push(target);
  }
  return written.sort();
}

/**
 * Creates a pack from the language's template: every file is written to a staging folder beside the
 * target, which is then renamed into place, so a failure leaves nothing behind and the target is never
 * half made.
 */
export async function createPack(options: CreatePackOptions): Promise<Result<CreatedPack, CliFailure>> {
  const problem = await targetProblem(options.dir);
  if (problem) return err(problem);
  const staging = join(dirname(options.dir), `.${basename(options.dir)}.kindgi-init-${randomBytes(4).toString('hex')}`);
  try {
    await mkdir(dirname(options.dir), { recursive: true });
    const files = await writeFiles(staging, options);
    // rename(2) replaces an empty folder, and fails (leaving it alone) if something appeared in it meanwhile.
    await rename(staging, options.dir);
    return ok({ dir: options.dir, packId: options.packId, language: options.language, files });
  } catch (cause) {
    await rm(staging, { recursive: true, force: true });
    return err({ code: 'init-failed', message: `could not create the pack in ${options.dir}: ${messageOf(cause)}` });
  }
}
