import { join, relative, sep } from 'node:path';
import { findKindgiConfig } from '@kindgi/indexer';
import { err, type PackIndex, type Result } from '@kindgi/protocol';
import { indexReportFailure, type PackBuildFailure, readIndexFile, runTool } from './build-tool.js';

/** Why a Python pack could not be indexed: one line, and each problem with its file. */
export type PythonIndexFailure = PackBuildFailure;

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
const PYTHON_OWN_FILES = new Set(['__pycache__', '.venv', 'venv', '.pytest_cache', '.mypy_cache', '.ruff_cache']);

/** True when the pack's config is a `pyproject.toml` with a `[tool.kindgi]` table. */
export async function isPythonPack(dir: string): Promise<boolean> {
  return (await findKindgiConfig(dir))?.format === 'pyproject';
}

/** The index and service commands of one Python pack under the server. */
export function createPythonPackBuild(options: { dir: string; python?: string }): PythonPackBuild {
  const { dir } = options;
  const python = options.python ?? DEFAULT_PYTHON;
  return {
    async build(indexPath) {
      const args = ['-m', 'kindgi.pack', 'index', '--pack-dir', dir, '--output', indexPath, '--json'];
      const result = await runTool(python, args, dir);
      if (result.code === 0) return readIndexFile(indexPath);
      const why = result.stderr.trim().split('\n').slice(-3).join(' ') || `exited ${result.code}`;
      return err(indexReportFailure(result, `${python} -m kindgi.pack index: ${why}`));
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
