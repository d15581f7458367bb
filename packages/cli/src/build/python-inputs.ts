import { existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readPyprojectTable } from '@kindgi/indexer';
import { describeThrown, err, ok, type Result } from '@kindgi/protocol';
import type { BuildFailure } from './pack-inputs.js';
import { PYTHON_LOCKFILE, type PythonInstall } from './python-plan.js';

// A hash-pinned requirements.txt of a large pack is some hundred kilobytes.
const MAX_LOCKFILE_BYTES = 4 * 1024 * 1024;
const MAX_REQUIREMENTS = 500;

/** The lockfiles other tools keep, and the command that exports each to the requirements.txt pip installs. */
const EXPORTS: Readonly<Record<string, string>> = {
  'uv.lock': 'uv export --frozen --no-emit-project --format requirements-txt -o requirements.txt',
  'poetry.lock': 'poetry export --format requirements.txt --output requirements.txt (poetry-plugin-export)',
  'Pipfile.lock': 'pipenv requirements --hash > requirements.txt',
};

/** PEP 503's normalized name of a requirement line (`Kindgi_SDK[x]>=1` → `kindgi-sdk`), or undefined. */
function requirementName(line: string): string | undefined {
  const name = /^\s*([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)/.exec(line)?.[1];
  return name?.toLowerCase().replace(/[-_.]+/g, '-');
}

async function checkLockfile(packDir: string): Promise<Result<void, BuildFailure>> {
  const path = join(packDir, PYTHON_LOCKFILE);
  if (statSync(path).size > MAX_LOCKFILE_BYTES) {
    return err({ code: 'lockfile-invalid', message: `${path} is over ${MAX_LOCKFILE_BYTES} bytes` });
  }
  const text = await readFile(path, 'utf8');
  const fix =
    'write it with hashes (uv pip compile --generate-hashes, pip-compile --generate-hashes, or uv export): the image installs it with pip --require-hashes';
  if (!/--hash=sha256:[0-9a-f]{64}/.test(text)) {
    return err({ code: 'lockfile-invalid', message: `${path} pins no hashes: ${fix}` });
  }
  const lines = text.split('\n').filter((line) => !/^\s*(#|-|$)/.test(line));
  if (!lines.some((line) => requirementName(line) === 'kindgi' && /==/.test(line))) {
    return err({
      code: 'lockfile-invalid',
      message: `${path} does not pin kindgi (kindgi==<version> --hash=…): the image serves the pack with the kindgi SDK from the lockfile`,
    });
  }
  return ok(undefined);
}

async function pyprojectRequirements(configFile: string): Promise<Result<string[], BuildFailure>> {
  let found: Awaited<ReturnType<typeof readPyprojectTable>>;
  try {
    found = await readPyprojectTable(configFile);
  } catch (cause) {
    return err({ code: 'config-failed', message: `${configFile}: ${describeThrown(cause)}` });
  }
  const listed = found?.project.dependencies ?? [];
  if (!Array.isArray(listed) || !listed.every((entry) => typeof entry === 'string' && !/[\r\n]/.test(entry))) {
    return err({ code: 'config-failed', message: `${configFile}: [project].dependencies must be a list of strings` });
  }
  if (listed.length > MAX_REQUIREMENTS) {
    return err({ code: 'config-failed', message: `${configFile}: over ${MAX_REQUIREMENTS} [project].dependencies` });
  }
  const requirements = listed as string[];
  const namesSdk = requirements.some((entry) => requirementName(entry) === 'kindgi');
  return ok(namesSdk ? requirements : ['kindgi', ...requirements]);
}

/**
 * What a Python pack's image installs: `requirements.txt` when the pack has one (pip's own lockfile
 * format, hash-pinned, which uv, pip-tools and poetry all export), else `[project].dependencies` of its
 * pyproject.toml as ranges (with a note). Another tool's lockfile without the export is refused, naming
 * the command that writes it.
 */
export async function pythonInstall(
  packDir: string,
  configFile: string,
): Promise<Result<{ install: PythonInstall; notes: string[] }, BuildFailure>> {
  const others = Object.keys(EXPORTS).filter((name) => existsSync(join(packDir, name)));
  if (existsSync(join(packDir, PYTHON_LOCKFILE))) {
    const checked = await checkLockfile(packDir);
    if (checked.kind === 'err') return checked;
    const notes = others.map(
      (name) => `the image installs ${PYTHON_LOCKFILE}, not ${name}: keep it exported (${EXPORTS[name]})`,
    );
    return ok({ install: { kind: 'lockfile' }, notes });
  }
  const other = others[0];
  if (other !== undefined) {
    return err({
      code: 'lockfile-missing',
      message: `${packDir} has ${other} but no ${PYTHON_LOCKFILE}: the image installs with pip from a hash-pinned ${PYTHON_LOCKFILE}; write it with ${EXPORTS[other]}`,
    });
  }
  const requirements = await pyprojectRequirements(configFile);
  if (requirements.kind === 'err') return requirements;
  const note = `no ${PYTHON_LOCKFILE}: the image installs [project].dependencies as ranges, so two image builds may differ; pin them with uv pip compile --generate-hashes pyproject.toml -o ${PYTHON_LOCKFILE}`;
  return ok({ install: { kind: 'ranges', requirements: requirements.value }, notes: [note] });
}
