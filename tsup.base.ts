import { defineConfig, type Options } from 'tsup';

/**
 * The one build every workspace package shares: ESM for Node 20 with declarations and source maps, `dist/`
 * cleaned first. Each package's tsup.config.ts names its entries and adds only what is its own (a banner,
 * narrower declaration entries).
 */
export function packageBuild(entry: NonNullable<Options['entry']>, own: Options = {}) {
  return defineConfig({
    entry,
    format: ['esm'],
    target: 'node20',
    dts: true,
    clean: true,
    sourcemap: true,
    ...own,
  });
}
