import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { findKindgiConfig } from '@kindgi/indexer';
import { err, messageOf, ok, type PackIndex, type Result } from '@kindgi/protocol';

/** Why a Python pack could not be indexed: one line, and each problem with its file. */
export interface PythonIndexFailure {
  message: string;
  problems: { code: string; file?: string; message: string }[];
}

/**
 * A Python pack (`pyproject.toml` with a `[tool.kindgi]` table) as the server runs it: indexed with
 * `python -m kindgi.pack index` and served with `python -m kindgi.pack serve` (sdks/python), the
 * interpreter being the pack's `python` setting (a virtualenv's, where the SDK and the pack's
 * dependencies are installed), else `python3` on PATH. Python runs the pack's files in place, so a
 * reindex needs no build or snapshot.
 */
export interface PythonPackBuild {
  /** Indexes into `indexPath` (nothing written there on a failure). */
  build(indexPath: string): Promise<Result<PackIndex, PythonIndexFailure>>;
  command(): readonly string[];
  /** Files Python itself writes (`__pycache__`, a `.venv` in the pack), which must not trigger a reindex. */
  ignores(changed: string | null): boolean;
}

/** The interpreter a Python pack runs with when its config names none. */
export const DEFAULT_PYTHON = 'python3';
const MAX_TOOL_OUTPUT = 16 * 1024 * 1024;
const PYTHON_OWN_FILES = new Set(['__pycache__', '.venv', 'venv', '.pytest_cache', '.mypy_cache', '.ruff_cache']);

/** True when the pack's config is a `pyproject.toml` with a `[tool.kindgi]` table. */
export async function isPythonPack(dir: string): Promise<boolean> {
  return (await findKindgiConfig(dir))?.format === 'pyproject';
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(program: string, args: string[], cwd: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(program, args, { cwd, maxBuffer: MAX_TOOL_OUTPUT, encoding: 'utf8' }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 127) : 0;
      resolve({ code, stdout, stderr: stderr || (error && code === 127 ? error.message : '') });
    });
  });
}

/** The indexer's `--json` error report (the shape kindgi-index and the Java SDK's `Main index` print). */
function indexFailure(result: Run, python: string): PythonIndexFailure {
  try {
    const report = JSON.parse(result.stdout) as {
      error?: { code: string; message: string; file?: string; fileErrors?: PythonIndexFailure['problems'] };
    };
    if (report.error) {
      const { code, message, file, fileErrors } = report.error;
      const problems = fileErrors ?? [{ code, message, ...(file === undefined ? {} : { file }) }];
      const detail = fileErrors ? fileErrors.map((p) => `${p.code}: ${p.message}`).join('; ') : message;
      return { message: `${code}: ${detail}`, problems };
    }
  } catch {
    // Not the JSON report: Python (or the SDK's import) failed before it; its stderr says why.
  }
  const why = result.stderr.trim().split('\n').slice(-3).join(' ') || `exited ${result.code}`;
  const message = `index-failed: ${python} -m kindgi.pack index: ${why}`;
  return { message, problems: [{ code: 'index-failed', message }] };
}

/** The index and service commands of one Python pack under the server. */
export function createPythonPackBuild(options: { dir: string; python?: string }): PythonPackBuild {
  const { dir } = options;
  const python = options.python ?? DEFAULT_PYTHON;
  return {
    async build(indexPath) {
      const args = ['-m', 'kindgi.pack', 'index', '--pack-dir', dir, '--output', indexPath, '--json'];
      const result = await run(python, args, dir);
      if (result.code !== 0) return err(indexFailure(result, python));
      try {
        return ok(JSON.parse(readFileSync(indexPath, 'utf8')) as PackIndex);
      } catch (cause) {
        const message = `cannot read ${indexPath}: ${messageOf(cause)}`;
        return err({ message, problems: [{ code: 'output-write-failed', file: indexPath, message }] });
      }
    },
    command() {
      return [python, '-m', 'kindgi.pack', 'serve'];
    },
    ignores(changed) {
      if (!changed) return false;
      const parts = relative(dir, join(dir, changed)).split(sep);
      return parts.some((part) => PYTHON_OWN_FILES.has(part)) || changed.endsWith('.pyc');
    },
  };
}
