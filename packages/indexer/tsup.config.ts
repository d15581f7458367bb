import { packageBuild } from '../../tsup.base.ts';

// The library, the process entry (`kindgi-index`), the pack build kept off the main entry and its process entry.
export default packageBuild(['src/index.ts', 'src/main.ts', 'src/build.ts', 'src/build-main.ts']);
