import { describe, expect, it } from 'vitest';

// Each entry point's runtime exports, by name: adding, renaming or removing one must show up in review as a
// change to these lists (types are checked by the packages that import them).
describe('@kindgi/indexer public surface', () => {
  it('. exports exactly these names', async () => {
    const surface = await import('../src/index.js');
    expect(Object.keys(surface).sort()).toEqual([
      'DEFAULT_DISCOVERY',
      'DEFAULT_JAVA_DISCOVERY',
      'DEFAULT_OUTPUT_PATH',
      'DEFAULT_PYTHON_DISCOVERY',
      'DEFAULT_SCALA_DISCOVERY',
      'INDEXER_ERROR_CODES',
      'INDEX_ENVELOPE_VERSION',
      'KINDGI_CONFIG_FILENAMES',
      'KINDGI_JSON_CONFIG_FILENAME',
      'PRIMITIVE_KINDS',
      'RESERVED_CHECK_IDS',
      'checkBundleMap',
      'findKindgiConfig',
      'loadKindgiConfig',
      'main',
      'packLanguage',
      'readKindgiConfig',
      'readPyprojectTable',
      'resolveDiscovery',
      'runIndexer',
      'validatePackEnvDeclaration',
    ]);
  });

  it('./build exports exactly these names', async () => {
    const surface = await import('../src/build.js');
    expect(Object.keys(surface).sort()).toEqual([
      'BUNDLED_CONFIG_FILENAME',
      'BUNDLE_MAP_FILENAME',
      'buildPack',
      'packBuildMain',
    ]);
  });
});
