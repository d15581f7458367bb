import { packageBuild } from '../../tsup.base.ts';

// One entry per export: each starts a different service, so a test pulls in only the one it runs.
export default packageBuild([
  'src/postgres.ts',
  'src/moto.ts',
  'src/otlp.ts',
  'src/crash-child.ts',
  'src/java-sdk.ts',
  'src/model-server.ts',
  'src/bench.ts',
  'src/bench-summary-main.ts',
]);
