import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kindgi, REPO_ROOT, removeTemps, runProgram, tempDir } from './helpers.js';

const CLI_DIR = join(REPO_ROOT, 'packages/cli');
const { version } = JSON.parse(readFileSync(join(CLI_DIR, 'package.json'), 'utf8')) as { version: string };

afterAll(removeTemps);

let tools: string;

beforeAll(() => {
  // A PATH folder with `npm` wrapped: every run of it is recorded, so a test can tell the cache was used.
  tools = tempDir('kindgiw-tools');
  const realNpm = execFileSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim();
  writeFileSync(join(tools, 'npm'), `#!/bin/sh\necho "$*" >> "${join(tools, 'npm.log')}"\nexec "${realNpm}" "$@"\n`);
  chmodSync(join(tools, 'npm'), 0o755);
});

function npmRuns(): number {
  const log = join(tools, 'npm.log');
  return existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').length : 0;
}

async function newPack(label: string): Promise<{ dir: string; env: NodeJS.ProcessEnv }> {
  const cwd = tempDir(label);
  const made = await kindgi(['init', 'wrapped', '--language', 'java'], { cwd });
  expect(made.code, made.stderr).toBe(0);
  const home = tempDir(`${label}-home`);
  const env: NodeJS.ProcessEnv = {
    PATH: `${tools}:${process.env.PATH ?? ''}`,
    HOME: home,
    XDG_CACHE_HOME: join(home, 'cache'),
    // npm's own cache and settings in the temporary home too; and no registry: everything comes from the source.
    npm_config_cache: join(home, 'npm-cache'),
    npm_config_offline: 'true',
    npm_config_userconfig: join(home, 'npmrc'),
  };
  return { dir: join(cwd, 'wrapped'), env };
}

/** A tarball of a dependency-free package named @kindgi/cli at `pkgVersion` whose bin prints its version. */
function fakeCliTarball(pkgVersion: string): string {
  const dir = tempDir('kindgiw-fake');
  mkdirSync(join(dir, 'pkg/dist'), { recursive: true });
  writeFileSync(
    join(dir, 'pkg/package.json'),
    JSON.stringify({ name: '@kindgi/cli', version: pkgVersion, type: 'module', bin: { kindgi: 'dist/main.js' } }),
  );
  writeFileSync(join(dir, 'pkg/dist/main.js'), `console.log('fake ' + ${JSON.stringify(pkgVersion)});\n`);
  execFileSync('npm', ['pack', '--pack-destination', dir, join(dir, 'pkg')], { stdio: 'pipe' });
  return join(dir, `kindgi-cli-${pkgVersion}.tgz`);
}

describe('./kindgiw', () => {
  it("runs the pack's own node_modules/@kindgi/cli when it is the pinned version (no npm)", async () => {
    const { dir, env } = await newPack('kindgiw-local');
    mkdirSync(join(dir, 'node_modules/@kindgi'), { recursive: true });
    symlinkSync(CLI_DIR, join(dir, 'node_modules/@kindgi/cli'));
    const before = npmRuns();
    const run = await runProgram(join(dir, 'kindgiw'), ['--version'], { cwd: dir, env });
    expect(run).toMatchObject({ code: 0, stdout: `${version}\n` });
    expect(npmRuns()).toBe(before);
  });

  it('fills the per-user cache once from KINDGI_CLI_SOURCE (the CLI package folder), then runs from it', async () => {
    const { dir, env } = await newPack('kindgiw-folder');
    const withSource = { ...env, KINDGI_CLI_SOURCE: CLI_DIR };
    const first = await runProgram(join(dir, 'kindgiw'), ['--version'], { cwd: dir, env: withSource });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe(`${version}\n`);
    expect(first.stderr).toContain(`installing kindgi ${version}`);
    expect(
      existsSync(join(env.XDG_CACHE_HOME ?? '', 'kindgi/cli', version, 'node_modules/@kindgi/cli/package.json')),
    ).toBe(true);
    const runs = npmRuns();
    const second = await runProgram(join(dir, 'kindgiw'), ['index', '--help'], { cwd: dir, env: withSource });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain('Usage: kindgi index');
    expect(second.stderr).toBe('');
    expect(npmRuns()).toBe(runs);
  }, 120_000);

  it('installs a tarball with npm into the cache; a tarball of another version fails clearly and caches nothing', async () => {
    const { dir, env } = await newPack('kindgiw-tarball');
    const wrong = await runProgram(join(dir, 'kindgiw'), ['--version'], {
      cwd: dir,
      env: { ...env, KINDGI_CLI_SOURCE: fakeCliTarball('9.9.9') },
    });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain(`the pack pins kindgi ${version}, but the install holds 9.9.9`);
    expect(existsSync(join(env.XDG_CACHE_HOME ?? '', 'kindgi/cli', version))).toBe(false);
    const right = await runProgram(join(dir, 'kindgiw'), ['anything'], {
      cwd: dir,
      env: { ...env, KINDGI_CLI_SOURCE: fakeCliTarball(version) },
    });
    expect(right).toMatchObject({ code: 0, stdout: `fake ${version}\n` });
  }, 120_000);

  it('fails clearly when the config pins no version, or Node is not on PATH', async () => {
    const { dir, env } = await newPack('kindgiw-fail');
    const config = JSON.parse(readFileSync(join(dir, 'kindgi.config.json'), 'utf8'));
    delete config.cli;
    writeFileSync(join(dir, 'kindgi.config.json'), JSON.stringify(config));
    const unpinned = await runProgram(join(dir, 'kindgiw'), ['--version'], { cwd: dir, env });
    expect(unpinned.code).toBe(1);
    expect(unpinned.stderr).toContain('pins no CLI version');
    const noNode = await runProgram('/bin/sh', [join(dir, 'kindgiw'), '--version'], {
      cwd: dir,
      env: { ...env, PATH: '/nonexistent' },
    });
    expect(noNode.code).toBe(1);
    expect(noNode.stderr).toContain('Node.js was not found');
  });

  it('reads the pin of a TypeScript config as a literal', async () => {
    const cwd = tempDir('kindgiw-ts');
    expect((await kindgi(['init', 'tspack'], { cwd })).code).toBe(0);
    const dir = join(cwd, 'tspack');
    const { env } = await newPack('kindgiw-ts-env');
    mkdirSync(join(dir, 'node_modules/@kindgi'), { recursive: true });
    symlinkSync(CLI_DIR, join(dir, 'node_modules/@kindgi/cli'));
    const run = await runProgram(join(dir, 'kindgiw'), ['--version'], { cwd: dir, env });
    expect(run).toMatchObject({ code: 0, stdout: `${version}\n` });
  });
});
