import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The built bin these tests drive (`pnpm --filter @kindgi/cli build` first). */
export const CLI_MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
/** The repository's root. */
export const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/** What one run of a process printed, and how it ended. */
export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a program to its end; `input` (when given) is written to its stdin, which is then closed. */
export function runProgram(
  program: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; input?: string },
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, [...args], { cwd: options.cwd, env: options.env ?? process.env });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

/** Runs `kindgi <args>` (the built bin) in `cwd`. */
export function kindgi(args: readonly string[], options: { cwd: string; env?: NodeJS.ProcessEnv; input?: string }) {
  return runProgram(process.execPath, [CLI_MAIN, ...args], options);
}

const temps: string[] = [];

/** A fresh temporary folder, removed by `removeTemps`. */
export function tempDir(label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `kindgi-cli-${label}-`));
  temps.push(dir);
  return dir;
}

/** Removes the folders `tempDir` made. */
export function removeTemps(): void {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/**
 * What `npm install` gives a pack `kindgi init` made, here where @kindgi/sdk is unpublished: links to the
 * workspace's copies of its dependencies (and of vitest, for its test).
 */
export function linkWorkspaceDependencies(packDir: string): void {
  mkdirSync(join(packDir, 'node_modules', '@kindgi'), { recursive: true });
  symlinkSync(join(REPO_ROOT, 'packages/sdk'), join(packDir, 'node_modules/@kindgi/sdk'));
  for (const [name, from] of [
    ['zod', 'packages/example-pack/node_modules/zod'],
    ['vitest', 'node_modules/vitest'],
  ] as const) {
    symlinkSync(realpathSync(join(REPO_ROOT, from)), join(packDir, 'node_modules', name));
  }
}
