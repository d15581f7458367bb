import { defineConfig } from 'tsup';

// One self-standing ESM bundle per pack file, at the same relative path under dist/ (tools/x/index.ts →
// dist/tools/x/index.mjs): the pack service imports these, while the index names the source paths.
export default defineConfig({
  entry: ['tools/*/index.ts', 'guardrails/*/index.ts', 'agents/*/index.ts', 'flows/*/index.ts'],
  outDir: 'dist',
  format: ['esm'],
  target: 'node20',
  splitting: false,
  sourcemap: true,
  clean: true,
  dts: false,
  outExtension: () => ({ js: '.mjs' }),
});
