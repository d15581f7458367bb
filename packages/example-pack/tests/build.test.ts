import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACK_ROOT } from './helpers.js';

// The build's output, as the pack service runs it: `pnpm test` builds first.
const DIST = join(PACK_ROOT, 'dist');
const INDEXER = join(PACK_ROOT, 'node_modules', '@kindgi', 'indexer', 'dist', 'main.js');

function indexTo(output: string, extra: string[]): Promise<void> {
  const args = [INDEXER, '--output', output];
  args.push('--artifact-version', '1', '--published-at', '2026-01-01T00:00:00.000Z', ...extra);
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, (error, _stdout, stderr) => (error ? reject(new Error(stderr)) : resolve()));
  });
}

describe('the built example pack', () => {
  it('has an index naming source paths and a bundle map pointing each at a bundle that exists', async () => {
    if (!existsSync(join(DIST, 'index.json')))
      throw new Error('dist/ is missing: run `pnpm --filter @kindgi/example-pack build`');
    const index = JSON.parse(await readFile(join(DIST, 'index.json'), 'utf8'));
    const map = JSON.parse(await readFile(join(DIST, 'bundle-map.json'), 'utf8')) as Record<string, string>;
    const paths = [
      ...index.tools.map((t: { modulePath: string }) => t.modulePath),
      ...index.guardrails.map((g: { checkModulePath: string }) => g.checkModulePath),
      ...index.agents.map((a: { modulePath: string }) => a.modulePath),
      ...index.flows.map((f: { modulePath: string }) => f.modulePath),
    ];
    expect(paths.sort()).toEqual(Object.keys(map).sort());
    for (const bundle of Object.values(map)) expect(existsSync(join(DIST, bundle)), bundle).toBe(true);
  });

  it('indexes the bundles byte for byte as it indexes the sources', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'example-pack-index-'));
    try {
      const fromSources = join(dir, 'from-sources.json');
      const fromBundles = join(dir, 'from-bundles.json');
      await indexTo(fromSources, ['--pack-dir', PACK_ROOT]);
      // The indexer stage's view: the build alone (bundled config, bundles, map), no sources, no loader.
      await indexTo(fromBundles, [
        '--pack-dir',
        DIST,
        '--bundle-map',
        join(DIST, 'bundle-map.json'),
        '--module-root',
        DIST,
      ]);
      expect(await readFile(fromBundles, 'utf8')).toBe(await readFile(fromSources, 'utf8'));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
