import { packageBuild } from '../../tsup.base.ts';

// One entry per export: the contract suites import vitest, so they stay off the main entry.
export default packageBuild(['src/index.ts', 'src/contract-suite.ts']);
