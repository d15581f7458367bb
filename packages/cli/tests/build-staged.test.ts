import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { createPackServiceClient } from '@kindgi/handler-runtime/pack-service';
import { afterAll, describe, expect, it } from 'vitest';
import { type RunningService, startService } from '../../handler-runtime/tests/helpers/processes.js';
import {
  copyImagePack,
  EXAMPLE_PACK_DIR,
  HANDLER_RUNTIME_DIR,
  makeTempDir,
  type RenderedStage,
  removeTempDirs,
  runKindgiBuild,
  SOURCE_DATE_EPOCH,
  snapshot,
  stagesOf,
} from './build-harness.js';

// What `kindgi build` renders, stage by stage, without a container engine (docs/pack-image.md, "What the
// staged test checks"): each stage is an empty folder standing for its WORKDIR, holding only what its COPY
// lines copy, and each RUN runs there under /bin/sh with nothing but the stage's ARG/ENV values and a PATH.
// Stand-ins, as no package can be installed here: the apt-get lines are checked and skipped; `npm ci` is a
// node_modules of links (the example pack's, and @kindgi/handler-runtime's build); prisma and fc-cache are
// stubs on the PATH that record their arguments and whether the build secret reached them.
const TOKEN = 'staged-test-token-0123456789abcdef';
const SECRET_VALUE = 'npm-secret-value-staged';
const root = makeTempDir('build-staged');
let service: RunningService | undefined;
afterAll(async () => {
  await service?.stop();
  removeTempDirs();
});

interface StageRun {
  dir: string;
  env: Record<string, string>;
  skipped: string[];
}

function readIgnorePatterns(file: string): RegExp[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((pattern) => {
      const anyDepth = pattern.startsWith('**/');
      const body = (anyDepth ? pattern.slice(3) : pattern).replaceAll('.', '\\.').replaceAll('*', '[^/]*');
      return new RegExp(anyDepth ? `(^|/)${body}$` : `^${body}$`);
    });
}

/** `COPY . .`: the pack folder less what the ignore file leaves out of the context. */
function copyContext(pack: string, target: string, ignore: RegExp[]): void {
  cpSync(pack, target, {
    recursive: true,
    filter: (source) => {
      const path = source.slice(pack.length + 1);
      return path === '' || !ignore.some((pattern) => pattern.test(path));
    },
  });
}

function substitute(text: string, env: Record<string, string>): string {
  return text.replace(/\$\{([A-Z_]+)\}/g, (_, name: string) => env[name] ?? '');
}

/** The `--mount` flags are BuildKit's: it mounts each secret as /run/secrets/<id> for that one step. */
function shellOf(args: string, secrets: string): string {
  return args.replace(/--mount=\S+ /g, '').replaceAll('/run/secrets/', `${secrets}/`);
}

function npmCiStandIn(dir: string): void {
  const modules = join(dir, 'node_modules');
  mkdirSync(join(modules, '@kindgi'), { recursive: true });
  for (const name of readdirSync(join(EXAMPLE_PACK_DIR, 'node_modules', '@kindgi'))) {
    symlinkSync(join(EXAMPLE_PACK_DIR, 'node_modules', '@kindgi', name), join(modules, '@kindgi', name), 'dir');
  }
  symlinkSync(join(EXAMPLE_PACK_DIR, 'node_modules', 'zod'), join(modules, 'zod'), 'dir');
  symlinkSync(HANDLER_RUNTIME_DIR, join(modules, '@kindgi', 'handler-runtime'), 'dir');
}

function performStage(
  stage: RenderedStage,
  context: { pack: string; ignore: RegExp[]; args: Record<string, string>; dirs: Map<string, StageRun> },
  tools: { bin: string; secrets: string },
): StageRun {
  // Beside the pack copy, at its depth: the stand-in install links outside the folder, and esbuild's
  // comments name a linked file by its path relative to the pack root (an image's install is inside it).
  const run: StageRun = { dir: join(root, `stage-${stage.name}`), env: {}, skipped: [] };
  mkdirSync(run.dir, { recursive: true });
  const pathOf = (stageName: string, path: string) => {
    const from = context.dirs.get(stageName);
    if (!from) throw new Error(`COPY --from=${stageName} before that stage ran`);
    return join(from.dir, path.replace(/^\/(src|app)\//, ''));
  };
  for (const [keyword, args] of stage.steps) {
    if (keyword === 'ARG') run.env[args] = context.args[args] ?? '';
    else if (keyword === 'ENV') {
      const [name = '', value = ''] = args.split(/=(.*)/s);
      run.env[name] = substitute(value.replace(/^"(.*)"$/, '$1'), run.env);
    } else if (keyword === 'COPY') {
      if (args === '. .') copyContext(context.pack, run.dir, context.ignore);
      else {
        const from = /^--from=(\S+) (.*)$/.exec(args);
        const list = JSON.parse(from ? (from[2] ?? '') : args) as string[];
        const destination = list.pop() ?? '';
        for (const source of list) {
          const full = from ? pathOf(from[1] ?? '', source) : join(context.pack, source);
          const target =
            destination.endsWith('/') && !destination.endsWith(`${source}/`)
              ? join(destination, source.split('/').at(-1) ?? '')
              : destination;
          mkdirSync(dirname(join(run.dir, target)), { recursive: true });
          cpSync(full, join(run.dir, target), { recursive: true });
        }
      }
    } else if (keyword === 'RUN') {
      if (args.includes('apt-get install')) {
        run.skipped.push(args);
        continue;
      }
      if (args.includes('npm ci')) {
        expect(args).toContain('--mount=type=secret,id=NPM_TOKEN,required=true');
        npmCiStandIn(run.dir);
        continue;
      }
      const env = { ...run.env, PATH: `${tools.bin}:${dirname(process.execPath)}:/usr/bin:/bin` };
      const ran = spawnSync('/bin/sh', ['-c', shellOf(args, tools.secrets)], { cwd: run.dir, env, encoding: 'utf8' });
      expect(ran.status, `${args}\n${ran.stderr}`).toBe(0);
    }
  }
  return run;
}

function writeStubs(bin: string, log: string): void {
  mkdirSync(bin);
  for (const name of ['npx', 'fc-cache']) {
    const script = `#!/bin/sh\necho "${name} $* (FONTS_DIR=$FONTS_DIR, secret of \${#NPM_TOKEN} chars)" >> '${log}'\n`;
    writeFileSync(join(bin, name), script);
    chmodSync(join(bin, name), 0o755);
  }
}

describe('the image `kindgi build` renders, staged', () => {
  it('builds, indexes byte-identically to kindgi build and the sources, and serves from the runtime stage', async () => {
    if (!existsSync(join(HANDLER_RUNTIME_DIR, 'dist', 'kindgi-pack-service.mjs'))) {
      throw new Error('Build @kindgi/handler-runtime first: dist/kindgi-pack-service.mjs is missing');
    }
    const pack = copyImagePack(root);
    const out = join(root, 'out');
    const built = await runKindgiBuild(['--out', out], pack, { SOURCE_DATE_EPOCH });
    expect(built, built.stderr).toMatchObject({ code: 0 });
    const rendered = stagesOf(readFileSync(join(out, 'Containerfile'), 'utf8'));
    expect(rendered.stages.map((stage) => stage.name)).toEqual(['build', 'indexer', 'runtime']);
    const args = Object.fromEntries(rendered.args.map((line) => line.slice('ARG '.length).split(/=(.*)/s).slice(0, 2)));
    const tools = { bin: join(root, 'bin'), secrets: join(root, 'secrets') };
    const log = join(root, 'stubs.log');
    writeStubs(tools.bin, log);
    mkdirSync(tools.secrets);
    writeFileSync(join(tools.secrets, 'NPM_TOKEN'), SECRET_VALUE);
    const context = {
      pack,
      ignore: readIgnorePatterns(join(out, 'Containerfile.dockerignore')),
      args,
      dirs: new Map<string, StageRun>(),
    };
    for (const stage of rendered.stages) context.dirs.set(stage.name, performStage(stage, context, tools));
    const [build, indexer, runtime] = ['build', 'indexer', 'runtime'].map((name) => context.dirs.get(name) as StageRun);
    if (!build || !indexer || !runtime) throw new Error('a stage did not run');

    // build: the extensions ran after the install, with buildEnv and the secret (by its length only).
    expect(readFileSync(log, 'utf8')).toBe(
      [
        `npx prisma generate --schema prisma/schema.prisma (FONTS_DIR=assets/fonts, secret of ${SECRET_VALUE.length} chars)`,
        `fc-cache -f assets/fonts (FONTS_DIR=assets/fonts, secret of ${SECRET_VALUE.length} chars)`,
        '',
      ].join('\n'),
    );
    expect(build.skipped).toHaveLength(1);
    expect(existsSync(join(build.dir, '.env'))).toBe(false);
    for (const [file, bytes] of snapshot(build.dir)) expect(bytes.includes(SECRET_VALUE), file).toBe(false);

    // indexer: only the indexer bundle and the bundles; the index is kindgi build's, byte for byte.
    const bundles = [...snapshot(join(indexer.dir, 'pack')).keys()];
    expect(bundles.every((file) => file.endsWith('.mjs') || file === 'bundle-map.json')).toBe(true);
    expect(Object.keys(indexer.env).sort()).toEqual(['ARTIFACT_VERSION', 'SOURCE_DATE_EPOCH']);
    expect(readFileSync(join(indexer.dir, 'index.json'))).toEqual(readFileSync(join(out, 'index.json')));
    const local = snapshot(join(out, 'pack'));
    for (const [file, bytes] of snapshot(join(indexer.dir, 'pack')))
      expect(local.get(file)?.equals(bytes), file).toBe(true);

    // The developer's kindgi-index over the sources, with the same pins, writes the same index.
    const fromSources = spawnSync(
      process.execPath,
      [
        join(HANDLER_RUNTIME_DIR, 'dist', 'kindgi-index', 'main.js'),
        '--pack-dir',
        '.',
        '--output',
        '../source-index.json',
        '--artifact-version',
        args.ARTIFACT_VERSION ?? '',
      ],
      { cwd: pack, env: { SOURCE_DATE_EPOCH }, encoding: 'utf8' },
    );
    expect(fromSources.status, fromSources.stderr).toBe(0);
    expect(readFileSync(join(root, 'source-index.json'))).toEqual(readFileSync(join(out, 'index.json')));

    // runtime: the service bundle, the bundles and the index; no build environment.
    expect([...snapshot(runtime.dir).keys()]).toEqual(
      ['index.json', 'kindgi-pack-service.mjs', ...bundles.map((file) => `pack/${file}`)].sort(),
    );
    expect(runtime.env).toEqual({ PORT: '8080' });
    expect(runtime.skipped).toHaveLength(1);
    const cmd = JSON.parse(rendered.stages[2]?.steps.at(-1)?.[1] ?? '[]') as string[];
    expect(cmd[0]).toBe('node');
    service = await startService(process.execPath, [...cmd.slice(1), '--host', '127.0.0.1'], runtime.dir, {
      PORT: '0',
      KINDGI_PACK_SERVICE_TOKEN: TOKEN,
      ACME_API_BASE: 'https://cases.acme.test/',
    });
    const client = createPackServiceClient({ url: `http://127.0.0.1:${service.port}`, token: TOKEN });
    try {
      const ctx = { tenantId: 't-1', runId: 'r-1' };
      const citation = await client.invoke({
        tool: { id: 'acme.format-citation' },
        input: { source: 'Brown v. Board', page: 483 },
        ctx,
      });
      expect(citation).toEqual({
        kind: 'ok',
        value: { v: 2, kind: 'result', output: { citation: '[Brown v. Board, p. 483]' } },
      });
      const link = await client.invoke({ tool: { id: 'acme.case-link' }, input: { caseId: 'CASE-1001' }, ctx });
      expect(link).toEqual({
        kind: 'ok',
        value: { v: 2, kind: 'result', output: { url: 'https://cases.acme.test/cases/CASE-1001' } },
      });
    } finally {
      await client.close();
    }
  });
});
