import { defineConfig } from 'tsup';

// Entries are listed one per line so the supervisor/relay/client modules can be added beside them.
export default defineConfig({
  entry: {
    index: 'src/index.ts',
    main: 'src/main.ts',
    bench: 'src/bench.ts',
    'bench-main': 'src/bench-main.ts',
  },
  format: ['esm'],
  target: 'node20',
  dts: true,
  clean: true,
  sourcemap: true,
  // A dev-only dependency of the benchmark entries: resolved from node_modules, never bundled.
  external: ['autocannon'],
  // Process entries run as `node dist/main.js` or through the `pack-service` bin.
  banner: ({ format }) => (format === 'esm' ? { js: '#!/usr/bin/env node' } : {}),
});
