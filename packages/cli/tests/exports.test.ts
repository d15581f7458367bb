import { describe, expect, it } from 'vitest';
import * as surface from '../src/index.js';

// The package's runtime exports, by name: adding, renaming or removing one must show up in review as a
// change to this list (types are checked by the packages that import them).
describe('@kindgi/cli public surface', () => {
  it('exports exactly these names', () => {
    expect(Object.keys(surface).sort()).toEqual([
      'EXIT',
      'parseCommandArgs',
      'printFailure',
      'printProgress',
      'printResult',
      'processIo',
      'runCli',
      'usageError',
    ]);
  });
});
