import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configText, copyBasicPack, makePack, PINNED, removePacks, toolText } from './helpers/packs.js';

// Black-box: the built process entry, as a pack image runs it (`pnpm test` builds first).
const MAIN = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'main.js');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [MAIN, ...args], { env: { ...process.env, ...env } }, (error, stdout, stderr) => {
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
      fileErrors: [],
    });
  });

  it('file errors: exit 0 with the errors on stderr, exit 1 with --strict', async () => {
    const pack = await makePack({
      'kindgi.config.mjs': configText(),
      'tools/a.mjs': toolText('acme.a'),
      'tools/b.mjs': "throw new Error('b is broken');\n",
    });
    const lenient = await run(['--pack-dir', pack, ...pinned]);
    expect(lenient.code).toBe(0);
    expect(lenient.stderr).toBe(
      'kindgi-index: file-import-failed: tools/b.mjs: import failed: Error: b is broken\nkindgi-index: 1 file(s) left out of the index\n',
    );
    const strict = await run(['--pack-dir', pack, '--strict', ...pinned]);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toContain('kindgi-index: 1 file(s) left out of the index (--strict)\n');
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

  it('--help and --version', async () => {
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain(
      'Exit codes: 0 indexed, 1 indexing failed (or --strict with file errors), 2 bad arguments.',
    );
    const version = await run(['--version']);
    const pkg = JSON.parse(await readFile(join(dirname(MAIN), '..', 'package.json'), 'utf8'));
    expect(version).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });
  });

  it('--bundle-map with --module-root', async () => {
    const pack = await makePack({ 'kindgi.config.mjs': configText(), 'build/a.mjs': toolText('acme.a') });
    const map = join(pack, 'build/map.json');
    const { writeFile } = await import('node:fs/promises');
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
    const result = await run(['--pack-dir', pack, ...pinned]);
    expect(result.stdout).toBe(
      `Indexed 1 tools, 0 guardrails, 1 agents, 0 flows into ${join(pack, 'dist/index.json')}\n`,
    );
    // The named export is seen through the CommonJS wrapper: its reserved id is caught.
    expect(result.stderr).toContain('reserved-check-id: guardrails/g/index.ts: export "extra"');
  });
});
