import { utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_DISCOVERY,
  DEFAULT_PYTHON_DISCOVERY,
  findKindgiConfig,
  KINDGI_CONFIG_FILENAMES,
  loadKindgiConfig,
  packLanguage,
  resolveDiscovery,
} from '../src/index.js';
import { configText, makePack, removePacks } from './helpers/packs.js';

afterAll(removePacks);

const JAVA_CONFIG = JSON.stringify({ pack: { id: 'acme.jvm', version: '0.3.0' }, language: 'java' });

describe('findKindgiConfig', () => {
  it('takes the module configs in KINDGI_CONFIG_FILENAMES order', async () => {
    expect(KINDGI_CONFIG_FILENAMES).toEqual([
      'kindgi.config.ts',
      'kindgi.config.mts',
      'kindgi.config.mjs',
      'kindgi.config.js',
      'kindgi.config.cjs',
    ]);
    const pack = await makePack({ 'kindgi.config.mjs': configText(), 'kindgi.config.ts': configText() });
    expect(await findKindgiConfig(pack)).toEqual({ path: join(pack, 'kindgi.config.ts'), format: 'module' });
  });

  it('finds a Java pack by kindgi.config.json', async () => {
    const pack = await makePack({ 'kindgi.config.json': JAVA_CONFIG });
    expect(await findKindgiConfig(pack)).toEqual({ path: join(pack, 'kindgi.config.json'), format: 'json' });
    const loaded = await loadKindgiConfig(pack);
    expect(loaded).toMatchObject({ kind: 'ok', value: { pack: { id: 'acme.jvm' }, language: 'java' } });
    if (loaded.kind === 'ok') expect(packLanguage(loaded.value)).toBe('java');
  });

  it('finds a Python pack by pyproject.toml [tool.kindgi], defaulting language and version', async () => {
    const pack = await makePack({
      'pyproject.toml':
        '[project]\nname = "acme"\nversion = "2.1.0"\n\n[tool.kindgi.pack]\nid = "acme.py"\n\n[tool.kindgi.env]\nrequired = ["DB_URL"]\n',
    });
    expect(await findKindgiConfig(pack)).toEqual({ path: join(pack, 'pyproject.toml'), format: 'pyproject' });
    const loaded = await loadKindgiConfig(pack);
    expect(loaded).toEqual({
      kind: 'ok',
      value: {
        language: 'python',
        pack: { id: 'acme.py', version: '2.1.0' },
        env: { required: ['DB_URL'], optional: [] },
      },
    });
  });

  it('does not take a pyproject.toml without [tool.kindgi] for a pack', async () => {
    const pack = await makePack({ 'pyproject.toml': '[project]\nname = "x"\n' });
    expect(await findKindgiConfig(pack)).toBeUndefined();
    const loaded = await loadKindgiConfig(pack);
    expect(loaded).toMatchObject({ kind: 'err', error: { code: 'config-not-found' } });
  });
});

describe('loadKindgiConfig', () => {
  it('config-not-found: names the folder and the files it looked for', async () => {
    const pack = await makePack({ 'README.md': 'no config here\n' });
    const loaded = await loadKindgiConfig(pack);
    expect(loaded).toEqual({
      kind: 'err',
      error: {
        code: 'config-not-found',
        message: `No pack config in ${pack}: expected one of kindgi.config.ts, kindgi.config.mts, kindgi.config.mjs, kindgi.config.js, kindgi.config.cjs, kindgi.config.json (Java/Scala) or a pyproject.toml with a [tool.kindgi] table (Python)`,
      },
    });
  });

  it('config-invalid: a JSON config next to another config', async () => {
    const pack = await makePack({ 'kindgi.config.json': JAVA_CONFIG, 'kindgi.config.mjs': configText() });
    const loaded = await loadKindgiConfig(pack);
    expect(loaded).toMatchObject({
      kind: 'err',
      error: {
        code: 'config-invalid',
        message: 'kindgi.config.json sits next to kindgi.config.mjs: a pack has exactly one config; remove one of them',
      },
    });
  });

  it.each([
    ["export default { pack: { version: '1.0.0' } };\n", 'kindgi.config.mjs: `pack.id` must be a non-empty string'],
    [
      "export default { pack: { id: 'acme', version: '' } };\n",
      'kindgi.config.mjs: `pack.version` must be a non-empty string',
    ],
    [
      "export default { pack: { id: 'acme', version: '1' }, language: 'ruby' };\n",
      'kindgi.config.mjs: `language` must be one of node, python, java, scala, got "ruby"',
    ],
    [
      "export default { pack: { id: 'acme', version: '1' }, discovery: { tool: [] } };\n",
      'kindgi.config.mjs: `discovery` takes only tools, guardrails, agents, flows, not `tool`',
    ],
    [
      'export const config = {};\n',
      'kindgi.config.mjs: could not be read: Error: has no default export: write `export default defineConfig({ pack: { id, version } })`',
    ],
    ["throw new Error('boom');\n", 'kindgi.config.mjs: could not be read: Error: boom'],
    [
      "export default { kind: 'err', error: { message: 'bad pack id' } };\n",
      'kindgi.config.mjs: defineConfig failed: bad pack id',
    ],
  ])('config-parse-failed: %s', async (text, message) => {
    const pack = await makePack({ 'kindgi.config.mjs': text });
    const loaded = await loadKindgiConfig(pack);
    expect(loaded).toMatchObject({ kind: 'err', error: { code: 'config-parse-failed', message } });
  });

  it('config-parse-failed: a JSON config that does not say java or scala', async () => {
    const pack = await makePack({ 'kindgi.config.json': JSON.stringify({ pack: { id: 'a', version: '1' } }) });
    const loaded = await loadKindgiConfig(pack);
    expect(loaded).toMatchObject({
      kind: 'err',
      error: {
        code: 'config-parse-failed',
        message:
          'kindgi.config.json: kindgi.config.json is the config of Java and Scala packs: it must say "language": "java" or "scala"',
      },
    });
  });

  it('unwraps a Result-wrapped config and loads TypeScript', async () => {
    const pack = await makePack({
      'kindgi.config.ts':
        "const version: string = '4.0.0';\nexport default { kind: 'ok', value: { pack: { id: 'acme', version } } };\n",
    });
    expect(await loadKindgiConfig(pack)).toEqual({ kind: 'ok', value: { pack: { id: 'acme', version: '4.0.0' } } });
  });

  it('sees an edited config (cache-busted by mtime)', async () => {
    const pack = await makePack({ 'kindgi.config.mjs': configText() });
    expect(await loadKindgiConfig(pack)).toMatchObject({ kind: 'ok', value: { pack: { version: '1.0.0' } } });
    const file = join(pack, 'kindgi.config.mjs');
    await writeFile(file, "export default { pack: { id: 'acme', version: '1.0.1' } };\n");
    const later = Date.now() / 1000 + 60;
    await utimes(file, later, later);
    expect(await loadKindgiConfig(pack)).toMatchObject({ kind: 'ok', value: { pack: { version: '1.0.1' } } });
  });

  it('reads an explicit config path', async () => {
    const pack = await makePack({ 'configs/pack.mjs': configText() });
    expect(await loadKindgiConfig(pack, { configPath: 'configs/pack.mjs' })).toMatchObject({ kind: 'ok' });
    expect(await loadKindgiConfig(pack, { configPath: 'configs/none.mjs' })).toMatchObject({
      kind: 'err',
      error: { code: 'config-not-found', message: `Config file ${join(pack, 'configs/none.mjs')} does not exist` },
    });
  });
});

describe('resolveDiscovery', () => {
  it("fills the language's defaults where the config names no patterns", () => {
    expect(resolveDiscovery(undefined, 'node')).toEqual(DEFAULT_DISCOVERY);
    expect(resolveDiscovery(undefined, 'python')).toEqual(DEFAULT_PYTHON_DISCOVERY);
    expect(resolveDiscovery({ tools: ['lib/**/*.ts'] }, 'node')).toEqual({
      ...DEFAULT_DISCOVERY,
      tools: ['lib/**/*.ts'],
    });
    expect(resolveDiscovery(undefined, 'java').flows).toEqual(['src/main/java/**/flows/**/*.java']);
    expect(resolveDiscovery(undefined, 'scala').tools).toEqual(['src/main/scala/**/tools/**/*.scala']);
    expect(DEFAULT_DISCOVERY.tools).toEqual(['tools/**/*.{ts,js,mjs}']);
    expect(packLanguage({})).toBe('node');
  });
});
