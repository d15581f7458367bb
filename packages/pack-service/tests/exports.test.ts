import { describe, expect, it } from 'vitest';
import * as surface from '../src/index.js';

// The package's runtime exports, by name: adding, renaming or removing one must show up in review as a
// change to this list (types are checked by the packages that import them).
describe('@kindgi/pack-service public surface', () => {
  it('exports exactly these names', () => {
    expect(Object.keys(surface).sort()).toEqual([
      'DEFAULT_MAX_CONCURRENCY',
      'DEFAULT_PACK_INDEX_PATH',
      'DEFAULT_PACK_SERVICE_PORT',
      'PACK_ENV_FILTER_VAR',
      'PACK_SERVICE_DRAIN_MS',
      'PACK_UNCAUGHT_EXIT_CODE',
      'PLATFORM_ENV_NAMES',
      'PLATFORM_ENV_PREFIXES',
      'SupervisorError',
      'createPackLog',
      'createPackMetrics',
      'createPackService',
      'createPackServiceClient',
      'createPackServiceSupervisor',
      'isPlatformEnvName',
      'main',
      'missingPackEnv',
      'readPackIndexFile',
      'readPackServiceConfig',
      'relay',
      'resolvePackEnv',
      'startPackService',
      'undeclaredPackEnv',
    ]);
  });
});
