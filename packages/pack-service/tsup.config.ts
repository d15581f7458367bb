import { packageBuild } from '../../tsup.base.ts';

// The package's entries: the library and the process entry (the benchmark lives in bench/, unbuilt).
export default packageBuild(
  { index: 'src/index.ts', main: 'src/main.ts' },
  // Process entries run as `node dist/main.js` or through the `pack-service` bin.
  { banner: ({ format }) => (format === 'esm' ? { js: '#!/usr/bin/env node' } : {}) },
);
