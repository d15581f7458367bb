import { describe, expect, it } from 'vitest';

// The runtime exports, by name: adding, renaming or removing one must show up in review.
describe('@kindgi/mcp public surface', () => {
  it('. exports exactly these names', async () => {
    const surface = await import('../src/index.js');
    expect(Object.keys(surface).sort()).toEqual([
      'DEADLINE_META_KEY',
      'PROTECTED_RESOURCE_WELL_KNOWN',
      'createMcpApp',
      'mcpMethodOf',
    ]);
  });
});
