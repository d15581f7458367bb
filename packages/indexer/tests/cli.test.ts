import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configText, copyBasicPack, freshDir, makePack, PINNED, removePacks, toolText } from './helpers/packs.js';

// Black-box: the built process entry, as a pack image runs it (`pnpm test` builds first).
const MAIN = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'main.js');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(args: string[], env: NodeJS.ProcessEnv = {}, cwd?: string): Promise<Run> {
  return new Promise((resolve) => {
    const options = { env: { ...process.env, ...env }, ...(cwd ? { cwd } : {}) };
    execFile(process.execPath, [MAIN, ...args], options, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

beforeAll(() => {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`pnpm --filter @kindgi/indexer build\` first`);
});
afterAll(removePacks);

const pinned = ['--artifact-version', PINNED.artifactVersion, '--published-at', PINNED.publishedAt];

describe('kindgi-index', () => {
  it('exit 0: indexes a TypeScript pack and says what it wrote', async () => {
    const pack = await copyBasicPack();
    const output = join(pack, 'out/index.json');
    const result = await run(['--pack-dir', pack, '--output', output, ...pinned]);
    expect(result).toEqual({
      code: 0,
      stdout: `Indexed 3 tools, 1 guardrails, 1 agents, 1 flows into ${output}\n`,
      stderr: '',
    });
    const index = JSON.parse(await readFile(output, 'utf8'));
    expect(index.tools.map((t: { id: string }) => t.id)).toEqual(['basic.echo', 'basic.shout', 'basic.sum']);
    expect(index.tools[0].input.required).toEqual(['text']);
  });

  it('is byte-identical to itself and honours SOURCE_DATE_EPOCH', async () => {
    const pack = await copyBasicPack();
    const a = join(pack, 'a.json');
    const b = join(pack, 'b.json');
    const env = { SOURCE_DATE_EPOCH: '1758378727' };
    expect((await run(['--pack-dir', pack, '--output', a, '--artifact-version', '1'], env)).code).toBe(0);
    expect((await run(['--pack-dir', pack, '--output', b, '--artifact-version', '1'], env)).code).toBe(0);
    const text = await readFile(a, 'utf8');
    expect(await readFile(b, 'utf8')).toBe(text);
    expect(JSON.parse(text).publishedAt).toBe('2025-09-20T14:32:07.000Z');
  });

  it('--json prints the report on stdout', async () => {
    const pack = await makePack({ 'kindgi.config.mjs': configText(), 'tools/a.mjs': toolText('acme.a') });
    const result = await run(['--pack-dir', pack, '--json', ...pinned]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      ok: true,
      outputPath: join(pack, 'dist/index.json'),
      counts: { tools: 1, guardrails: 0, agents: 0, flows: 0 },
      warnings: [],
    });
  });

  it('file errors: exit 1 naming every failing file with its code; the previous index is left untouched', async () => {
    const pack = await makePack({ 'kindgi.config.mjs': configText(), 'tools/a.mjs': toolText('acme.a') });
    expect((await run(['--pack-dir', pack, ...pinned])).code).toBe(0);
    const indexPath = join(pack, 'dist/index.json');
    const before = await readFile(indexPath, 'utf8');
    await writeFile(join(pack, 'tools/a.mjs'), 'export const a = 1;\n');
    await writeFile(join(pack, 'tools/b.mjs'), "throw new Error('b is broken');\n");
    const failed = await run(['--pack-dir', pack, '--artifact-version', '2']);
    expect(failed).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'kindgi-index: no-default-export: tools/a.mjs: has no default export: write `export default defineTool({ … })` (or defineGuardrail, defineAgent, defineFlow)\n' +
        'kindgi-index: file-import-failed: tools/b.mjs: import failed: Error: b is broken\n' +
        'kindgi-index: 2 file(s) could not be indexed; no index was written\n',
    });
    expect(await readFile(indexPath, 'utf8')).toBe(before);
    const json = await run(['--pack-dir', pack, '--json', '--strict']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({
      ok: false,
      error: { code: 'no-default-export', fileErrors: [{ file: 'tools/a.mjs' }, { file: 'tools/b.mjs' }] },
    });
  });

  it('resolves path options against the working directory', async () => {
    const pack = await makePack({ 'kindgi.config.mjs': configText(), 'tools/a.mjs': toolText('acme.a') });
    const cwd = await freshDir();
    const result = await run(['--pack-dir', relative(cwd, pack), '--output', 'out/index.json', ...pinned], {}, cwd);
    expect(result).toMatchObject({
      code: 0,
      stdout: `Indexed 1 tools, 0 guardrails, 0 agents, 0 flows into ${join(cwd, 'out/index.json')}\n`,
    });
    expect(existsSync(join(cwd, 'out/index.json'))).toBe(true);
  });

  it('exit 1: an indexer error, named with its code and file on stderr', async () => {
    const pack = await makePack({ 'kindgi.config.mjs': "export default { pack: { id: 'acme' } };\n" });
    const result = await run(['--pack-dir', pack]);
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: 'kindgi-index: config-parse-failed: kindgi.config.mjs: `pack.version` must be a non-empty string\n',
    });
    const json = await run(['--pack-dir', pack, '--json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, error: { code: 'config-parse-failed' } });
  });

  it('exit 1: a Java pack is refused with the command that indexes it', async () => {
    const pack = await makePack({ 'kindgi.config.json': '{"pack":{"id":"acme","version":"1"},"language":"java"}' });
    const result = await run(['--pack-dir', pack]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('language-mismatch');
    expect(result.stderr).toContain('com.kindgi.pack.Main index --pack-dir .');
  });

  it('exit 2: bad arguments', async () => {
    const missing = await run([]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^kindgi-index: --pack-dir is required\n\nUsage: kindgi-index/);
    const unknown = await run(['--pack-dir', '.', '--frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("Unknown option '--frobnicate'");
    const stray = await run(['--pack-dir', '.', '--module-root', 'x']);
    expect(stray).toMatchObject({ code: 2, stderr: 'kindgi-index: --module-root only applies with --bundle-map\n' });
    const pack = await makePack({ 'kindgi.config.mjs': configText(), 'tools/a.mjs': toolText('acme.a') });
    const badTime = await run(['--pack-dir', pack, '--published-at', 'soon']);
    expect(badTime.code).toBe(2);
    expect(badTime.stderr).toContain('options-invalid: publishedAt must be an ISO 8601 time');
  });

  it('--help, -h and --version', async () => {
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain(
      'Exit codes: 0 indexed, 1 indexing failed (any file that fails: nothing is written), 2 bad arguments.',
    );
    expect(await run(['-h'])).toEqual(help);
    const version = await run(['--version']);
    const pkg = JSON.parse(await readFile(join(dirname(MAIN), '..', 'package.json'), 'utf8'));
    expect(version).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });
  });

  it('--bundle-map with --module-root', async () => {
    const pack = await makePack({ 'kindgi.config.mjs': configText(), 'build/a.mjs': toolText('acme.a') });
    const map = join(pack, 'build/map.json');
    await writeFile(map, JSON.stringify({ 'tools/a.ts': 'a.mjs' }));
    const result = await run([
      '--pack-dir',
      pack,
      '--bundle-map',
      map,
      '--module-root',
      join(pack, 'build'),
      ...pinned,
    ]);
    expect(result.code).toBe(0);
    const index = JSON.parse(await readFile(join(pack, 'dist/index.json'), 'utf8'));
    expect(index.tools[0]).toMatchObject({ id: 'acme.a', modulePath: 'tools/a.ts' });
  });

  it('indexes TypeScript compiled as CommonJS (a package without "type": "module")', async () => {
    const pack = await makePack({
      'package.json': '{ "name": "cjs-pack", "type": "commonjs" }\n',
      'kindgi.config.ts': "export default { pack: { id: 'acme', version: '1.0.0' } };\n",
      'tools/a/index.ts': "export default { id: 'acme.a', input: { type: 'object' }, handler: async () => ({}) };\n",
      'guardrails/g/index.ts':
        "export const extra = { id: 'tool-order', evaluate: () => ({ passed: true }) };\nexport default { id: 'acme.g', action: 'halt', check: 'acme.checks.extra' };\n",
      'agents/b.js': "module.exports = { id: 'acme.b', instructions: 'hi' };\n",
    });
    // The named export is seen through the CommonJS wrapper: its reserved id is caught.
    const refused = await run(['--pack-dir', pack, ...pinned]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('reserved-check-id: guardrails/g/index.ts: export "extra"');
    await writeFile(
      join(pack, 'guardrails/g/index.ts'),
      "export const extra = { id: 'acme.checks.extra', evaluate: () => ({ passed: true }) };\nexport default { id: 'acme.g', action: 'halt', check: 'acme.checks.extra' };\n",
    );
    const result = await run(['--pack-dir', pack, ...pinned]);
    expect(result.stdout).toBe(
      `Indexed 1 tools, 1 guardrails, 1 agents, 0 flows into ${join(pack, 'dist/index.json')}\n`,
    );
  });
});
