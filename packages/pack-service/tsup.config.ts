import { packageBuild } from '../../tsup.base.ts';

// The package's entries: the library, the process entry and the tracing bootstrap the server shares (the
// benchmark lives in bench/, unbuilt).
export default packageBuild(
  { index: 'src/index.ts', main: 'src/main.ts', tracing: 'src/tracing.ts' },
  // Process entries run as `node dist/main.js` or through the `pack-service` bin.
  { banner: ({ format }) => (format === 'esm' ? { js: '#!/usr/bin/env node' } : {}) },
);
