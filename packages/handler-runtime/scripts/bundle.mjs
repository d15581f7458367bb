// Writes the seed's two self-contained process bundles, dist/kindgi-index.mjs and
// dist/kindgi-pack-service.mjs: every dependency inlined, so each runs from a folder holding nothing else
// (a pack image's indexer and runtime stages copy just the one file). Runs after tsup, from the builds of
// the workspace packages it inlines.
import { readFileSync } from 'node:fs';
import { build } from 'esbuild';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

const BUNDLES = {
  'kindgi-index': 'src/kindgi-index-main.ts',
  'kindgi-pack-service': 'src/pack-service-main.ts',
};

await build({
  entryPoints: BUNDLES,
  outdir: 'dist',
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // CommonJS dependencies (ajv, fast-glob) call require() for Node built-ins; an ESM bundle has none.
  banner: {
    js: "import { createRequire as __kindgiCreateRequire } from 'node:module';\nconst require = __kindgiCreateRequire(import.meta.url);",
  },
  // No package.json travels with a bundle: `--version` reads this instead.
  define: { __KINDGI_VERSION__: JSON.stringify(version) },
  legalComments: 'eof',
  logLevel: 'warning',
});
