import { describe, expect, it } from 'vitest';

// Each entry point's runtime exports, by name: adding, renaming or removing one must show up in review as a
// change to these lists (types are checked by the packages that import them).
describe('@kindgi/handler-runtime public surface', () => {
  it('. exports exactly these names', async () => {
    const surface = await import('../src/index.js');
    expect(Object.keys(surface).sort()).toEqual([
      'DEFAULT_DISCOVERY',
      'DEFAULT_JAVA_DISCOVERY',
      'DEFAULT_PYTHON_DISCOVERY',
      'DEFAULT_SCALA_DISCOVERY',
      'INDEX_ENVELOPE_VERSION',
      'KINDGI_CONFIG_FILENAMES',
      'PACK_ENV_FILTER_VAR',
      'PLATFORM_ENV_NAMES',
      'PLATFORM_ENV_PREFIXES',
      'RESERVED_CHECK_IDS',
      'findKindgiConfig',
      'isPlatformEnvName',
      'loadKindgiConfig',
      'missingPackEnv',
      'packLanguage',
      'resolveDiscovery',
      'resolvePackEnv',
      'runCheck',
      'runHandler',
      'runIndexer',
      'undeclaredPackEnv',
    ]);
  });

  it('./protocol exports exactly these names', async () => {
    const surface = await import('../src/protocol.js');
    expect(Object.keys(surface).sort()).toEqual([
      'PACK_ERROR_CODES',
      'PACK_HEADERS',
      'PACK_PROTOCOL_VERSION',
      'packError',
      'parsePackRequest',
      'parsePackResponse',
    ]);
  });

  it('./pack-service exports exactly these names', async () => {
    const surface = await import('../src/pack-service.js');
    expect(Object.keys(surface).sort()).toEqual([
      'PACK_SERVICE_DRAIN_MS',
      'SupervisorError',
      'createPackService',
      'createPackServiceClient',
      'createPackServiceSupervisor',
      'main',
      'readPackServiceConfig',
      'relay',
      'startPackService',
    ]);
  });

  it('./kindgi-index exports exactly these names', async () => {
    const surface = await import('../src/kindgi-index.js');
    expect(Object.keys(surface).sort()).toEqual([
      'BUNDLED_CONFIG_FILENAME',
      'BUNDLE_MAP_FILENAME',
      'buildPack',
      'findKindgiConfig',
      'loadKindgiConfig',
      'main',
      'packBuildMain',
      'packLanguage',
      'resolveDiscovery',
      'runIndexer',
    ]);
  });

  it('./build-extensions exports exactly these names', async () => {
    const surface = await import('../src/build-extensions.js');
    expect(Object.keys(surface).sort()).toEqual(['defineBuildExtension', 'prisma']);
  });
});
