import { packageBuild } from '../../tsup.base.ts';

// One entry per export; the node-only harnesses (postgres, moto, otlp, crash-child) stay off the main entry.
export default packageBuild([
  'src/index.ts',
  'src/contract-suite.ts',
  'src/postgres.ts',
  'src/moto.ts',
  'src/otlp.ts',
  'src/crash-child.ts',
]);
