import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  makeTempDir,
  type Ran,
  REPO_ROOT,
  removeTempDirs,
  runKindgiBuild,
  SOURCE_DATE_EPOCH,
  snapshot,
  stagesOf,
} from './build-harness.js';
import { missingPythonTools, VENV } from './build-python-harness.js';
import { kindgi } from './helpers.js';

// `kindgi build` on the pack `kindgi init --language python` makes: what it renders for each way a
// Python pack pins its dependencies, and that two builds write the same bytes. The local indexer is
// python3 on PATH: the CI venv's, where the SDK is installed.
const missing = missingPythonTools();
if (missing) console.warn(`build-python.test.ts: skipped, ${missing}`);
const PATH = `${join(VENV, 'bin')}:${process.env.PATH ?? ''}`;
const HASH = `--hash=sha256:${'ab'.repeat(32)}`;
let root = '';
let pack = '';

afterAll(removeTempDirs);

function build(args: string[], extra: Record<string, string> = {}): Promise<Ran> {
  return runKindgiBuild(args, pack, { SOURCE_DATE_EPOCH, PATH, ...extra });
}

function errorOf(run: Ran): { code: string; message: string } {
  return (JSON.parse(run.stdout) as { error: { code: string; message: string } }).error;
}

describe.skipIf(missing !== undefined)('kindgi build on a Python pack', () => {
  beforeAll(async () => {
    root = makeTempDir('build-python');
    const init = await kindgi(['init', 'acme', '--language', 'python'], { cwd: root });
    expect(init.code, init.stderr).toBe(0);
    pack = join(root, 'acme');
  });

  it("ignores Python's own files in git and in the image, and builds twice the same", async () => {
    const gitignore = readFileSync(join(pack, '.gitignore'), 'utf8').split('\n');
    expect(gitignore).toEqual(
      expect.arrayContaining(['.env*', '.venv/', '__pycache__/', '*.egg-info', '.pytest_cache/']),
    );
    const first = await build(['--out', join(root, 'out-1')]);
    expect(first, first.stderr).toMatchObject({ code: 0 });
    // A cache the first run may have left in the pack changes nothing: the image leaves it out.
    writeFileSync(join(pack, 'tools', 'stray.pyc'), 'bytecode');
    const second = await build(['--out', join(root, 'out-2')]);
    expect(second.code, second.stderr).toBe(0);
    const one = snapshot(join(root, 'out-1'));
    expect([...one.keys()]).toEqual(['Containerfile', 'Containerfile.dockerignore', 'index.json']);
    for (const [file, bytes] of snapshot(join(root, 'out-2'))) expect(one.get(file)?.equals(bytes), file).toBe(true);
    const index = JSON.parse(one.get('index.json')?.toString() ?? '{}');
    expect(index.publishedAt).toBe('2025-09-20T14:32:07.000Z');
    expect(index.artifactVersion).toMatch(/^0\.1\.0\+[0-9a-f]{12}$/);
    expect(index.tools.map((tool: { id: string }) => tool.id)).toEqual(['acme.greet']);
    expect(one.get('Containerfile.dockerignore')?.toString()).toMatch(/^\.venv\n[\s\S]*^\*\*\/__pycache__$/m);
    rmSync(join(pack, 'tools', 'stray.pyc'));

    // No requirements.txt: [project].dependencies as written, with a note saying how to pin them.
    const install = stagesOf(one.get('Containerfile')?.toString() ?? '').stages[0]?.steps.find(([, rest]) =>
      rest.includes('pip install'),
    );
    expect(install?.[1]).toContain(
      "pip install --no-cache-dir --disable-pip-version-check 'kindgi>=0.1' 'pydantic>=2.6,<3'",
    );
    expect(first.stderr).toContain('no requirements.txt: the image installs [project].dependencies as ranges');
  }, 120_000);

  it('renders buildEnv and secrets into the build stage only, and pins the base image', async () => {
    const pyproject = readFileSync(join(pack, 'pyproject.toml'), 'utf8');
    const digest = `python:3.12-slim@sha256:${'c'.repeat(64)}`;
    const image = `\n[tool.kindgi.image]\nbaseImage = "${digest}"\nbuildEnv = { PIP_INDEX_URL = "https://pypi.acme.test/simple" }\nsecretEnv = ["PIP_EXTRA_INDEX_URL"]\n`;
    writeFileSync(join(pack, 'pyproject.toml'), `${pyproject}${image}`);
    writeFileSync(join(pack, 'requirements.txt'), `kindgi==0.1.0 \\\n    ${HASH}\npydantic==2.14.4 \\\n    ${HASH}\n`);
    try {
      const run = await build(['--dry-run', '--json']);
      expect(run.code, run.stderr).toBe(0);
      const report = JSON.parse(run.stdout) as { containerfile: string; files: string[]; language: string };
      expect(report.language).toBe('python');
      expect(report.files).toEqual(['Containerfile', 'Containerfile.dockerignore', 'index.json']);
      expect(existsSync(join(pack, '.kindgi', 'build'))).toBe(false);
      const { args, stages } = stagesOf(report.containerfile);
      expect(args[0]).toBe(`ARG PYTHON_IMAGE=${digest}`);
      const [buildStage, indexer, runtime] = stages.map((stage) => stage.steps.map(([k, rest]) => `${k} ${rest}`));
      expect(buildStage).toContain('ENV PIP_INDEX_URL="https://pypi.acme.test/simple"');
      expect(buildStage).toContain('COPY ["requirements.txt","./"]');
      expect(buildStage?.find((line) => line.includes('--require-hashes -r requirements.txt'))).toContain(
        '--mount=type=secret,id=PIP_EXTRA_INDEX_URL,required=true export PIP_EXTRA_INDEX_URL="$(cat /run/secrets/PIP_EXTRA_INDEX_URL)"',
      );
      for (const later of [indexer, runtime])
        expect(later?.join('\n')).not.toMatch(/PIP_INDEX_URL|PIP_EXTRA_INDEX_URL/);
      expect(report.containerfile).not.toMatch(/^(ARG|ENV) PIP_EXTRA_INDEX_URL/m);
    } finally {
      writeFileSync(join(pack, 'pyproject.toml'), pyproject);
      rmSync(join(pack, 'requirements.txt'));
    }
  }, 60_000);

  it('renders what docs/python.md shows for the init pack with a requirements.txt', async () => {
    const doc = readFileSync(join(REPO_ROOT, 'docs', 'python.md'), 'utf8');
    const shown = /\*\*What it renders\*\*[\s\S]*?```dockerfile\n([\s\S]*?)```/.exec(doc)?.[1];
    writeFileSync(join(pack, 'requirements.txt'), `kindgi==0.1.0 \\\n    ${HASH}\n`);
    try {
      const run = await build(['--dry-run', '--json']);
      expect(run.code, run.stderr).toBe(0);
      const { containerfile } = JSON.parse(run.stdout) as { containerfile: string };
      const body = containerfile
        .replace(/^(#.*\n)+/, '')
        .replace(/(ARTIFACT_VERSION=0\.1\.0\+)[0-9a-f]{12}/, '$1<12 hex>');
      expect(shown).toBe(body);
    } finally {
      rmSync(join(pack, 'requirements.txt'));
    }
  });

  it('refuses a lockfile pip cannot install as locked, naming the fix', async () => {
    const cases: [string, string, string, RegExp][] = [
      ['uv.lock', 'version = 1\n', 'lockfile-missing', /has uv\.lock but no requirements\.txt.*uv export --frozen/],
      ['requirements.txt', 'kindgi==0.1.0\n', 'lockfile-invalid', /pins no hashes.*--generate-hashes/],
      ['requirements.txt', `pydantic==2.14.4 \\\n    ${HASH}\n`, 'lockfile-invalid', /does not pin kindgi/],
    ];
    for (const [file, text, code, message] of cases) {
      writeFileSync(join(pack, file), text);
      try {
        const run = await build(['--json', '--out', join(root, 'refused')]);
        expect(run.code, run.stdout).toBe(1);
        expect(errorOf(run)).toMatchObject({ code, message: expect.stringMatching(message) });
        expect(existsSync(join(root, 'refused'))).toBe(false);
      } finally {
        rmSync(join(pack, file));
      }
    }
  }, 60_000);

  it('fails naming the file when the pack does not index', async () => {
    writeFileSync(join(pack, 'tools', 'broken.py'), 'import not_a_module_anywhere\n');
    try {
      const run = await build(['--json', '--out', join(root, 'broken')]);
      expect(run.code).toBe(1);
      expect(errorOf(run)).toMatchObject({ code: 'index-failed', message: expect.stringContaining('tools/broken.py') });
    } finally {
      rmSync(join(pack, 'tools', 'broken.py'));
    }
  }, 60_000);
});
