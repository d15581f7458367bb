import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { createPackServiceClient } from '@kindgi/handler-runtime/pack-service';
import { afterAll, describe, expect, it } from 'vitest';
import { type RunningService, startService } from '../../handler-runtime/tests/helpers/processes.js';
import { makeTempDir, removeTempDirs, runKindgiBuild, SOURCE_DATE_EPOCH, snapshot, stagesOf } from './build-harness.js';
import {
  buildSdkWheel,
  lockfileFor,
  mapApp,
  missingPythonTools,
  mustRun,
  PY_FIXTURE_PACK,
  type PythonStageContext,
  type PythonStageRun,
  performPythonStage,
  readContextFilter,
  VENV,
  VENV_PYTHON,
  WHEELHOUSE,
  writeFile,
} from './build-python-harness.js';

// What `kindgi build` renders for a Python pack, stage by stage, without a container engine (docs/python.md,
// "A pack image"): each stage an empty folder standing for /app, holding only what its COPY lines copy,
// each RUN run there with the stage's ARG/ENV values and the base image's PATH. Nothing is stood in for
// but apt-get (skipped) and the package index: the pack's buildEnv points pip at the CI venv's wheelhouse
// and the SDK wheel built here (PIP_NO_INDEX, PIP_FIND_LINKS), so the rendered install line itself makes
// the virtualenv from the hash-pinned requirements.txt.
const TOKEN = 'python-staged-token-0123456789abcdef';
const SECRET_VALUE = 'private-index-secret-staged';
const missing = missingPythonTools();
if (missing) console.warn(`build-python-staged.test.ts: skipped, ${missing}`);
const root = makeTempDir('build-python-staged');
let service: RunningService | undefined;
afterAll(async () => {
  await service?.stop();
  removeTempDirs();
});

function imageTable(findLinks: string): string {
  return `
[tool.kindgi.image]
systemPackages = ["libpq5"]
buildEnv = { PIP_NO_INDEX = "1", PIP_FIND_LINKS = "${findLinks}", PROMPTS_DIR = "assets/prompts" }
secretEnv = ["PRIVATE_INDEX_TOKEN"]

[[tool.kindgi.image.extensions]]
name = "prompts"
contextFiles = ["assets/prompts"]
postInstall = ["sh assets/prompts/record.sh"]
`;
}

// Runs in the build stage after the install: which python is on PATH, and the build variables it got.
const RECORD = `python -c 'import sys, kindgi.pack; print(sys.prefix)' > "$PROMPTS_DIR/built.txt"
echo "secret of \${#PRIVATE_INDEX_TOKEN} chars" >> "$PROMPTS_DIR/built.txt"
`;

/** The twin fixture pack with an image section, its lockfile, and what the context must leave out. */
function makePack(sdkDist: string): string {
  const pack = join(root, 'pack');
  cpSync(PY_FIXTURE_PACK, pack, { recursive: true, filter: (source) => !source.includes('__pycache__') });
  const pyproject = readFileSync(join(pack, 'pyproject.toml'), 'utf8');
  writeFile(join(pack, 'pyproject.toml'), `${pyproject}${imageTable(`${WHEELHOUSE} ${sdkDist}`)}`);
  writeFile(join(pack, 'requirements.txt'), lockfileFor([WHEELHOUSE, sdkDist]));
  writeFile(join(pack, 'assets', 'prompts', 'record.sh'), RECORD);
  writeFile(join(pack, 'assets', 'prompts', 'greeting.txt'), 'hello\n');
  // Never in the image's context.
  writeFile(join(pack, '.env'), 'TWIN_REQUIRED=from-dotenv\n');
  writeFile(join(pack, '.venv', 'lib', 'stale.py'), 'raise SystemExit("a developer venv")\n');
  writeFile(join(pack, 'tools', '__pycache__', 'add.cpython-311.pyc'), 'stale bytecode');
  return pack;
}

function basePath(): string {
  const bin = join(root, 'base-bin');
  mkdirSync(bin);
  const base = mustRun(VENV_PYTHON, ['-c', 'import sys; print(sys._base_executable, end="")']);
  symlinkSync(base, join(bin, 'python'));
  return `${bin}:/usr/bin:/bin`;
}

describe.skipIf(missing !== undefined)('the image `kindgi build` renders for a Python pack, staged', () => {
  it('makes the virtualenv from the lockfile, indexes byte-identically to kindgi build, and serves', async () => {
    const sdkDist = join(root, 'sdk-dist');
    buildSdkWheel(sdkDist);
    const pack = makePack(sdkDist);
    const out = join(root, 'out');
    const env = { SOURCE_DATE_EPOCH, PATH: `${join(VENV, 'bin')}:${process.env.PATH ?? ''}` };
    const built = await runKindgiBuild(['--out', out], pack, env);
    expect(built, built.stderr).toMatchObject({ code: 0 });
    expect(readdirSync(out).sort()).toEqual(['Containerfile', 'Containerfile.dockerignore', 'index.json']);
    const rendered = stagesOf(readFileSync(join(out, 'Containerfile'), 'utf8'));
    expect(rendered.stages.map((stage) => stage.name)).toEqual(['build', 'indexer', 'runtime']);
    const args = Object.fromEntries(rendered.args.map((line) => line.slice('ARG '.length).split(/=(.*)/s).slice(0, 2)));
    const context: PythonStageContext = {
      root,
      pack,
      keep: readContextFilter(join(out, 'Containerfile.dockerignore')),
      args,
      dirs: new Map<string, PythonStageRun>(),
      basePath: basePath(),
      secrets: join(root, 'secrets'),
    };
    writeFile(join(context.secrets, 'PRIVATE_INDEX_TOKEN'), SECRET_VALUE);
    for (const stage of rendered.stages) context.dirs.set(stage.name, performPythonStage(stage, context));
    const [build, indexer, runtime] = ['build', 'indexer', 'runtime'].map(
      (name) => context.dirs.get(name) as PythonStageRun,
    );
    if (!build || !indexer || !runtime) throw new Error('a stage did not run');

    // build: the locked install ran; the extension ran after it, with the venv's python and the secret.
    const install = rendered.stages[0]?.steps.find(([, rest]) => rest.includes('pip install'))?.[1] ?? '';
    expect(install).toContain('--require-hashes -r requirements.txt');
    expect(install).toContain('--mount=type=secret,id=PRIVATE_INDEX_TOKEN,required=true');
    expect(build.skipped).toHaveLength(1);
    expect(readFileSync(join(build.dir, 'pack', 'assets', 'prompts', 'built.txt'), 'utf8')).toBe(
      `${join(build.dir, '.venv')}\nsecret of ${SECRET_VALUE.length} chars\n`,
    );
    for (const gone of ['.env', '.venv', 'tools/__pycache__'])
      expect(existsSync(join(build.dir, 'pack', gone))).toBe(false);
    for (const [file, bytes] of snapshot(build.dir)) expect(bytes.includes(SECRET_VALUE), file).toBe(false);

    // indexer: the ARGs only; its index is kindgi build's, byte for byte, and the sources' with the same pins.
    expect(Object.keys(indexer.env).sort()).toEqual(['ARTIFACT_VERSION', 'PUBLISHED_AT']);
    expect(readFileSync(join(indexer.dir, 'index.json'))).toEqual(readFileSync(join(out, 'index.json')));
    const pins = ['--published-at', args.PUBLISHED_AT ?? '', '--artifact-version', args.ARTIFACT_VERSION ?? ''];
    const sourceIndex = join(root, 'source-index.json');
    mustRun(VENV_PYTHON, ['-m', 'kindgi.pack', 'index', '--pack-dir', pack, '--output', sourceIndex, ...pins]);
    expect(readFileSync(sourceIndex)).toEqual(readFileSync(join(out, 'index.json')));

    // runtime: the virtualenv, the pack (with the extension's output) and the index; no build environment.
    expect(readdirSync(runtime.dir).sort()).toEqual(['.venv', 'index.json', 'pack']);
    expect(runtime.env).toEqual({ PORT: '8080' });
    expect(runtime.skipped).toHaveLength(1);
    expect(existsSync(join(runtime.dir, 'pack', 'assets', 'prompts', 'built.txt'))).toBe(true);
    // The SDK is the wheel's copy in the runtime's own virtualenv (not the CI venv's editable install).
    const sdkFile = mustRun(join(runtime.dir, '.venv', 'bin', 'python'), [
      '-c',
      'import kindgi.pack as p; print(p.__file__, end="")',
    ]);
    expect(sdkFile.startsWith(join(runtime.dir, '.venv'))).toBe(true);
    const cmd = (JSON.parse(rendered.stages[2]?.steps.at(-1)?.[1] ?? '[]') as string[]).map((part) =>
      mapApp(part, runtime.dir),
    );
    expect(cmd.slice(1, 4)).toEqual(['-m', 'kindgi.pack', 'serve']);
    service = await startService(cmd[0] ?? '', [...cmd.slice(1), '--host', '127.0.0.1'], runtime.dir, {
      PORT: '0',
      KINDGI_PACK_SERVICE_TOKEN: TOKEN,
      TWIN_REQUIRED: 'set',
    });
    const client = createPackServiceClient({ url: `http://127.0.0.1:${service.port}`, token: TOKEN });
    try {
      const ctx = { tenantId: 't-1', runId: 'r-1' };
      const echo = await client.invoke({ tool: { id: 'twin.echo' }, input: { message: 'hi', loud: true }, ctx });
      expect(echo).toEqual({ kind: 'ok', value: { v: 2, kind: 'result', output: { message: 'HI!' } } });
      const add = await client.invoke({ tool: { id: 'twin.add' }, input: { a: 40 }, ctx });
      expect(add).toEqual({ kind: 'ok', value: { v: 2, kind: 'result', output: 42 } });
    } finally {
      await client.close();
    }
  }, 300_000);
});
