import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runIndexer } from '../src/index.js';
import { configText, freshDir, makePack, PINNED, removePacks } from './helpers/packs.js';

afterAll(removePacks);

const TOOL_BUNDLE = `const input = { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] };
export default { id: 'acme.lookup', input, handler: async ({ q }) => ({ q }) };
`;
const GUARDRAIL_BUNDLE = `export default {
  id: 'acme.polite', action: { 'on-violation': 'retry', maxRetries: 2 },
  check: { id: 'acme.checks.polite', evaluate: () => ({ passed: true }) },
};
`;

describe('bundle mode', () => {
  it('classifies the map’s source paths, imports each bundle, records the source path', async () => {
    // The source tree is absent: only the config and the build output exist.
    const pack = await makePack({ 'kindgi.config.mjs': configText() });
    const moduleRoot = await makePack({
      'out/tools/lookup/index.mjs': TOOL_BUNDLE,
      'out/guardrails/polite.mjs': GUARDRAIL_BUNDLE,
      'out/lib/util.mjs': 'export default 1;\n',
    });
    const bundleMap = join(moduleRoot, 'bundle-map.json');
    await writeFile(
      bundleMap,
      JSON.stringify({
        './tools/lookup/index.ts': 'out/tools/lookup/index.mjs',
        'guardrails/polite.ts': 'out/guardrails/polite.mjs',
        'lib/util.ts': 'out/lib/util.mjs',
        'tools/lookup/index.test.ts': 'out/lib/util.mjs',
      }),
    );
    const outcome = await runIndexer({ packDir: pack, bundleMap, moduleRoot, ...PINNED });
    expect(outcome).toMatchObject({ kind: 'ok', value: { counts: { tools: 1, guardrails: 1 } } });
    const index = JSON.parse(await readFile(join(pack, 'dist/index.json'), 'utf8'));
    expect(index.tools[0]).toMatchObject({ id: 'acme.lookup', modulePath: 'tools/lookup/index.ts' });
    expect(index.guardrails[0]).toMatchObject({
      id: 'acme.polite',
      checkModulePath: 'guardrails/polite.ts',
      checkId: 'acme.checks.polite',
      action: { 'on-violation': 'retry', maxRetries: 2 },
    });
  });

  it('resolves bundle paths against the pack root by default and names the bundle when one fails', async () => {
    const pack = await makePack({
      'kindgi.config.mjs': configText(),
      'b/ok.mjs': TOOL_BUNDLE,
      'b/broken.mjs': "throw new Error('bundle is broken');\n",
    });
    const bundleMap = { 'tools/ok.ts': 'b/ok.mjs', 'tools/broken.ts': 'b/broken.mjs', 'tools/gone.ts': 'b/gone.mjs' };
    const outcome = await runIndexer({ packDir: pack, bundleMap, ...PINNED });
    expect(outcome.kind).toBe('err');
    if (outcome.kind !== 'err') return;
    expect(outcome.error.fileErrors?.map((e) => e.message)).toEqual([
      `tools/broken.ts: import failed (bundle ${join(pack, 'b/broken.mjs')}): Error: bundle is broken`,
      `tools/gone.ts: import failed (bundle ${join(pack, 'b/gone.mjs')}): Error: ENOENT: no such file or directory, stat '${join(pack, 'b/gone.mjs')}'`,
    ]);
  });

  it('refuses a malformed bundle map (options-invalid) and an empty match (discovery-empty)', async () => {
    const pack = await makePack({ 'kindgi.config.mjs': configText() });
    const escaping = await runIndexer({ packDir: pack, bundleMap: { '../tools/x.ts': 'x.mjs' } });
    expect(escaping).toEqual({
      kind: 'err',
      error: {
        code: 'options-invalid',
        message: 'bundleMap: "../tools/x.ts" must be a source path relative to the pack root, inside it',
      },
    });
    for (const bundle of ['../outside.mjs', '/abs/x.mjs']) {
      const outside = await runIndexer({ packDir: pack, bundleMap: { 'tools/x.ts': bundle } });
      expect(outside).toEqual({
        kind: 'err',
        error: {
          code: 'options-invalid',
          message:
            'bundleMap: the bundle of "tools/x.ts" must be a non-empty path relative to the module root, inside it (no "..", not absolute)',
        },
      });
    }
    const dir = await freshDir();
    const notJson = join(dir, 'map.json');
    await writeFile(notJson, '[1, 2]');
    const wrongShape = await runIndexer({ packDir: pack, bundleMap: notJson });
    expect(wrongShape).toMatchObject({
      kind: 'err',
      error: {
        code: 'options-invalid',
        message: `bundle map ${notJson} must be a JSON object of source path → bundle path`,
      },
    });
    const empty = await runIndexer({ packDir: pack, bundleMap: { 'lib/a.ts': 'a.mjs' } });
    expect(empty.kind === 'err' && empty.error.code).toBe('discovery-empty');
    expect(empty.kind === 'err' && empty.error.message).toMatch(
      /^Discovery found nothing to index: no source path of the bundle map/,
    );
  });
});
