import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { expect } from 'vitest';
import { REPO_ROOT, type RenderedStage } from './build-harness.js';

// The CI virtualenv (.ci/run): the kindgi SDK installed editable, `build` and hatchling to make its
// wheel, and `wheelhouse/` with the SDK's runtime dependencies as wheels (KINDGI_PY_WHEELHOUSE: another).
export const VENV = process.env.KINDGI_TEST_VENV ?? join(REPO_ROOT, '.ci', 'venv');
export const VENV_PYTHON = join(VENV, 'bin', 'python');
export const WHEELHOUSE = process.env.KINDGI_PY_WHEELHOUSE ?? join(VENV, 'wheelhouse');
export const PY_FIXTURE_PACK = join(REPO_ROOT, 'sdks', 'python', 'tests', 'fixtures', 'py-pack');

/** Runs a command to its end and expects exit 0; returns its stdout. */
export function mustRun(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  const ran = spawnSync(command, args, { ...options, encoding: 'utf8', timeout: 300_000 });
  expect(ran.status, `${command} ${args.join(' ')}\n${ran.stdout}\n${ran.stderr}`).toBe(0);
  return ran.stdout;
}

/** The SDK's wheel, built offline from sdks/python (`python -m build --no-isolation`) into `outDir`. */
export function buildSdkWheel(outDir: string): string {
  const sdk = join(REPO_ROOT, 'sdks', 'python');
  mustRun(VENV_PYTHON, ['-m', 'build', '--wheel', '--no-isolation', '--outdir', outDir, sdk]);
  const wheel = readdirSync(outDir).find((name) => /^kindgi-.*\.whl$/.test(name));
  if (!wheel) throw new Error(`python -m build wrote no kindgi wheel into ${outDir}`);
  return join(outDir, wheel);
}

/**
 * A hash-pinned requirements.txt (what `uv pip compile --generate-hashes` writes) for every wheel of
 * `dirs`: one version per project, the highest when a folder holds several.
 */
export function lockfileFor(dirs: readonly string[]): string {
  const chosen = new Map<string, { version: string; file: string }>();
  for (const dir of dirs) {
    for (const name of readdirSync(dir).filter((file) => file.endsWith('.whl'))) {
      const [project = '', version = ''] = name.split('-');
      const key = project.toLowerCase().replace(/[-_.]+/g, '-');
      const earlier = chosen.get(key);
      if (!earlier || earlier.version.localeCompare(version, 'en', { numeric: true }) < 0) {
        chosen.set(key, { version, file: join(dir, name) });
      }
    }
  }
  const lines = [...chosen.entries()].sort(([a], [b]) => a.localeCompare(b));
  return lines
    .map(([project, { version, file }]) => {
      const hash = createHash('sha256').update(readFileSync(file)).digest('hex');
      return `${project}==${version} \\\n    --hash=sha256:${hash}\n`;
    })
    .join('');
}

/** What one performed stage left: its folder (standing for /app), its variables and the steps skipped. */
export interface PythonStageRun {
  dir: string;
  env: Record<string, string>;
  skipped: string[];
}

/** What the stages share: the build context, the global ARGs, the stages run so far, the stand-ins. */
export interface PythonStageContext {
  root: string;
  pack: string;
  keep: (path: string) => boolean;
  args: Record<string, string>;
  dirs: Map<string, PythonStageRun>;
  /** PATH of the base image: a folder with `python` (the interpreter the CI venv was made from). */
  basePath: string;
  /** Stands for /run/secrets. */
  secrets: string;
}

/** Each stage folder stands for /app: `/app/x` in a COPY, ENV or CMD is `<folder>/x`. */
export function mapApp(text: string, dir: string): string {
  return text.replace(/(^|[":\s])\/app(?=\/|"|$|\s)/g, `$1${dir}`);
}

function substitute(text: string, env: Record<string, string>): string {
  return text.replace(/\$\{([A-Z_]+)\}/g, (_, name: string) => env[name] ?? '');
}

function copyStep(args: string, run: PythonStageRun, workdir: string, context: PythonStageContext): void {
  if (args === '. .') {
    cpSync(context.pack, join(run.dir, workdir), {
      recursive: true,
      filter: (source) => source === context.pack || context.keep(source.slice(context.pack.length + 1)),
    });
    return;
  }
  const from = /^--from=(\S+) (.*)$/.exec(args);
  const list = JSON.parse(from ? (from[2] ?? '') : args) as string[];
  const destination = list.pop() ?? '';
  for (const source of list) {
    let full = join(context.pack, source);
    if (from) {
      const stage = context.dirs.get(from[1] ?? '');
      if (!stage) throw new Error(`COPY --from=${from[1]} before that stage ran`);
      full = mapApp(source, stage.dir);
    }
    // Docker's rules: a folder's contents go to the destination; a file goes into a destination ending in /.
    const intoFolder = destination.endsWith('/') && !statSync(full).isDirectory();
    const target = intoFolder ? join(destination, source.split('/').at(-1) ?? '') : destination;
    mkdirSync(dirname(join(run.dir, workdir, target)), { recursive: true });
    cpSync(full, join(run.dir, workdir, target), { recursive: true, verbatimSymlinks: true });
  }
}

/**
 * Performs one rendered stage in an empty folder: COPY copies only what it names, RUN runs under /bin/sh
 * with the stage's ARG/ENV values alone (PATH: the base image's unless an ENV sets it). Stand-ins: the
 * apt-get line is skipped; BuildKit's secret mounts are files in `context.secrets`.
 */
export function performPythonStage(stage: RenderedStage, context: PythonStageContext): PythonStageRun {
  const run: PythonStageRun = { dir: join(context.root, `stage-${stage.name}`), env: {}, skipped: [] };
  mkdirSync(run.dir, { recursive: true });
  let workdir = '.';
  for (const [keyword, args] of stage.steps) {
    if (keyword === 'ARG') run.env[args] = context.args[args] ?? '';
    else if (keyword === 'WORKDIR') {
      workdir = args === '/app' ? '.' : args.replace(/^\/app\//, '');
      mkdirSync(join(run.dir, workdir), { recursive: true });
    } else if (keyword === 'ENV') {
      const [name = '', value = ''] = args.split(/=(.*)/s);
      const scope = { PATH: context.basePath, ...run.env };
      run.env[name] = mapApp(substitute(value.replace(/^"(.*)"$/, '$1'), scope), run.dir);
    } else if (keyword === 'COPY') copyStep(args, run, workdir, context);
    else if (keyword === 'RUN') {
      if (args.includes('apt-get install')) {
        run.skipped.push(args);
        continue;
      }
      const shell = args.replace(/--mount=\S+ /g, '').replaceAll('/run/secrets/', `${context.secrets}/`);
      const env = { PATH: context.basePath, ...run.env };
      const ran = spawnSync('/bin/sh', ['-c', shell], { cwd: join(run.dir, workdir), env, encoding: 'utf8' });
      expect(ran.status, `${args}\n${ran.stdout}\n${ran.stderr}`).toBe(0);
    }
  }
  return run;
}

/** Checks the CI virtualenv has what the staged test needs, naming what to run when it does not. */
export function missingPythonTools(): string | undefined {
  if (!existsSync(VENV_PYTHON)) return `${VENV_PYTHON} is missing: create the venv as .ci/run does`;
  for (const project of ['pydantic', 'httptools', 'uvloop', 'jsonschema_rs']) {
    if (!existsSync(WHEELHOUSE) || !readdirSync(WHEELHOUSE).some((name) => name.startsWith(`${project}-`))) {
      return `${WHEELHOUSE} has no ${project} wheel: run the python step of .ci/run (pip download of the SDK's dependencies)`;
    }
  }
  return undefined;
}

/**
 * The rendered ignore file as a filter of context paths (relative): a path is kept unless it, or a folder
 * it is in, matches a pattern (`name`, `*`, a leading `**\/`: the forms kindgi build writes).
 */
export function readContextFilter(file: string): (path: string) => boolean {
  const patterns = readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((pattern) => {
      const anyDepth = pattern.startsWith('**/');
      const body = (anyDepth ? pattern.slice(3) : pattern).replaceAll('.', '\\.').replaceAll('*', '[^/]*');
      return new RegExp(anyDepth ? `(^|/)${body}$` : `^${body}$`);
    });
  return (path) => {
    const parts = path.split('/');
    return !parts.some((_, end) => patterns.some((pattern) => pattern.test(parts.slice(0, end + 1).join('/'))));
  };
}

/** Writes `text` to `path`, making its folder. */
export function writeFile(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}
