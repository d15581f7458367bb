import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { buildPack } from '../src/build.js';
import { runIndexer } from '../src/index.js';
import { freshDir, makePack, PINNED, removePacks } from './helpers/packs.js';

afterAll(removePacks);

const BUILD_MAIN = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'build-main.js');

const TS_PACK = {
  'kindgi.config.ts': "const id: string = 'acme';\nexport default { pack: { id, version: '1.0.0' } };\n",
  'lib/shout.ts': 'export const shout = (text: string): string => text.toUpperCase();\n',
  'tools/echo/index.ts': `import { z } from 'zod';
import { shout } from '../../lib/shout.js';
export default {
  id: 'acme.echo',
  inputZod: z.object({ text: z.string() }),
  handler: async ({ text }: { text: string }) => ({ text: shout(text) }),
};
`,
  'tools/sum.mjs': "export default { id: 'acme.sum', input: { type: 'object' }, handler: async () => ({ sum: 0 }) };\n",
};

function runBuild(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BUILD_MAIN, ...args], { cwd }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
    });
  });
}

describe('buildPack', () => {
  it('bundles each discovered file and the config; the build indexes byte for byte as the sources', async () => {
    const pack = await makePack(TS_PACK);
    const built = await buildPack({ packDir: pack, outDir: 'build' });
    if (built.kind === 'err') throw new Error(built.error.message);
    const out = join(pack, 'build');
    expect(built.value.bundleMap).toEqual({
      'tools/echo/index.ts': 'tools/echo/index.mjs',
      'tools/sum.mjs': 'tools/sum.mjs',
    });
    expect(JSON.parse(await readFile(join(out, 'bundle-map.json'), 'utf8'))).toEqual(built.value.bundleMap);
    expect(existsSync(join(out, 'kindgi.config.mjs'))).toBe(true);
    // Self-contained: neither zod nor the pack's lib/ is imported from outside the bundle.
    const echo = await readFile(join(out, 'tools/echo/index.mjs'), 'utf8');
    expect(echo).not.toMatch(/from ["'](zod|\.\.\/)/);

    const fromSources = await runIndexer({ packDir: pack, outputPath: join(pack, 'a.json'), ...PINNED });
    const fromBuild = await runIndexer({
      packDir: out,
      bundleMap: join(out, 'bundle-map.json'),
      moduleRoot: out,
      outputPath: join(pack, 'b.json'),
      ...PINNED,
    });
    expect([fromSources.kind, fromBuild.kind]).toEqual(['ok', 'ok']);
    expect(await readFile(join(pack, 'b.json'), 'utf8')).toBe(await readFile(join(pack, 'a.json'), 'utf8'));
  });

  it('a file that does not bundle fails the build, naming it, and leaves the previous build as it was', async () => {
    const pack = await makePack(TS_PACK);
    expect((await buildPack({ packDir: pack })).kind).toBe('ok');
    const mapPath = join(pack, 'dist/bundle-map.json');
    const before = await readFile(mapPath, 'utf8');
    const sumBefore = await readFile(join(pack, 'dist/tools/sum.mjs'), 'utf8');
    await writeFile(
      join(pack, 'tools/sum.mjs'),
      "export default { id: 'acme.sum', handler: async () => ({ sum: 1 }) };\n",
    );
    await writeFile(
      join(pack, 'tools/broken.ts'),
      "import { nothing } from './no-such-file.js';\nexport default nothing;\n",
    );
    const failed = await buildPack({ packDir: pack });
    expect(failed).toMatchObject({ kind: 'err', error: { code: 'bundle-failed', file: 'tools/broken.ts' } });
    expect(failed.kind === 'err' && failed.error.message).toContain('no-such-file.js');
    expect(await readFile(mapPath, 'utf8')).toBe(before);
    expect(await readFile(join(pack, 'dist/tools/sum.mjs'), 'utf8')).toBe(sumBefore);
  });

  it('refuses a folder without a module config, and reports a bad config by its source name', async () => {
    const empty = await makePack({ 'tools/a.mjs': 'export default 1;\n' });
    expect(await buildPack({ packDir: empty })).toMatchObject({ kind: 'err', error: { code: 'config-not-found' } });
    const bad = await makePack({ 'kindgi.config.ts': "export default { pack: { id: 'acme' } };\n" });
    expect(await buildPack({ packDir: bad })).toMatchObject({
      kind: 'err',
      error: { code: 'config-parse-failed', message: 'kindgi.config.ts: `pack.version` must be a non-empty string' },
    });
    expect(existsSync(join(bad, 'dist/kindgi.config.mjs'))).toBe(false);
  });
});

describe('kindgi-pack-build', () => {
  it('builds with paths relative to the working directory; --help, -h, --version; exit 2 on an unknown flag', async () => {
    if (!existsSync(BUILD_MAIN)) throw new Error(`${BUILD_MAIN} is missing: build @kindgi/indexer first`);
    const pack = await makePack(TS_PACK);
    const cwd = await freshDir();
    const built = await runBuild(['--pack-dir', relative(cwd, pack), '--out-dir', 'out'], cwd);
    expect(built).toMatchObject({ code: 0, stderr: '' });
    expect(existsSync(join(cwd, 'out/bundle-map.json'))).toBe(true);
    const help = await runBuild(['--help'], cwd);
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toMatch(/^Usage: kindgi-pack-build --pack-dir <path>/);
    expect(await runBuild(['-h'], cwd)).toEqual(help);
    const version = await runBuild(['--version'], cwd);
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+/);
    const unknown = await runBuild(['--colour'], cwd);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("Unknown option '--colour'");
    expect(unknown.stderr).toContain('Usage: kindgi-pack-build');
  });
});
