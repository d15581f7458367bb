import { describe, expect, it } from 'vitest';

// Each entry point's runtime exports, by name: adding, renaming or removing one must show up in review as a
// change to these lists (types are checked by the packages that import them).
describe('@kindgi/server public surface', () => {
  it('. exports exactly these names', async () => {
    const surface = await import('../src/index.js');
    expect(Object.keys(surface).sort()).toEqual([
      'createIndexCatalog',
      'createJavaPackBuild',
      'createJsonLogger',
      'createServerMetrics',
      'ensureDevCredentials',
      'isJavaPack',
      'loadServerConfig',
      'remotePackSchema',
      'serverConfigSchema',
      'startServer',
      'startTracing',
      'tracingRequested',
    ]);
  });
});
