export { FIXTURE_CHECK_IDS, FIXTURE_TOOL_IDS } from './cases/index-cases.js';
export { PINS, REQUIRED_ENV } from './context.js';
export { type Reply, send, sendChecked } from './http.js';
export {
  buildNodeFixtureIndex,
  fixtureGuardrails,
  fixtureIndex,
  fixtureTools,
  nodeFixturePackDir,
} from './node-fixture.js';
export { type SpecShape, specProblems } from './schemas.js';
export {
  eventOf,
  type ListeningService,
  type LogRecord,
  newToken,
  type ServiceProcess,
  type ServiceStart,
  spawnService,
  startListening,
} from './service-process.js';
export { describePackServiceConformance } from './suite.js';
export type { ConformanceFeature, ConformanceTarget, IndexPins } from './types.js';
