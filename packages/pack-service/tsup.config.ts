import { defineConfig } from 'tsup';

// The package's entries: the library and the process entry (the benchmark lives in bench/, unbuilt).
export default defineConfig({
  entry: {
    index: 'src/index.ts',
    main: 'src/main.ts',
  },
  format: ['esm'],
  target: 'node20',
  dts: true,
  clean: true,
  sourcemap: true,
  // Process entries run as `node dist/main.js` or through the `pack-service` bin.
  banner: ({ format }) => (format === 'esm' ? { js: '#!/usr/bin/env node' } : {}),
});
