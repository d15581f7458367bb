import { describe, expect, it } from 'vitest';

// Each entry point's runtime exports, by name: adding, renaming or removing one must show up in review as a
// change to these lists (types are checked by the packages that import them).
describe('@kindgi/test-services public surface', () => {
  it('./postgres exports exactly these names', async () => {
    const surface = await import('../src/postgres.js');
    expect(Object.keys(surface).sort()).toEqual(['startPostgres']);
  });

  it('./moto exports exactly these names', async () => {
    const surface = await import('../src/moto.js');
    expect(Object.keys(surface).sort()).toEqual(['startMotoServer', 'startRelay', 'testVenvBin']);
  });

  it('./otlp exports exactly these names', async () => {
    const surface = await import('../src/otlp.js');
    expect(Object.keys(surface).sort()).toEqual(['startOtlpReceiver']);
  });

  it('./crash-child exports exactly these names', async () => {
    const surface = await import('../src/crash-child.js');
    expect(Object.keys(surface).sort()).toEqual(['crashChildren']);
  });

  it('./bench-kit exports exactly these names', async () => {
    const surface = await import('../src/bench.js');
    expect(Object.keys(surface).sort()).toEqual([
      'TICK_MICROS',
      'benchResultsDir',
      'benchSummary',
      'recordBenchResult',
      'spawnUntilRecord',
      'treeCpuMicros',
      'writeBenchPack',
    ]);
  });
});
