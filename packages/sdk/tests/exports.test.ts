import { describe, expect, it } from 'vitest';

// Each entry point's runtime exports, by name: adding, renaming or removing one must show up in review as a
// change to these lists (types are checked by the packages that import them).
describe('@kindgi/sdk public surface', () => {
  it('. exports exactly these names', async () => {
    const surface = await import('../src/index.js');
    expect(Object.keys(surface).sort()).toEqual([
      'GUARDRAIL_ACTIONS',
      'GUARDRAIL_SEVERITIES',
      'KindgiDefinitionError',
      'PACK_LANGUAGES',
      'PRIMITIVE_MARKER',
      'defineAgent',
      'defineConfig',
      'defineFlow',
      'defineGuardrail',
      'defineTool',
      'primitiveKindOf',
    ]);
  });

  it('./build exports exactly these names', async () => {
    const surface = await import('../src/build.js');
    expect(Object.keys(surface).sort()).toEqual([
      'checkImageConfig',
      'defineBuildExtension',
      'prisma',
      'validateImageConfig',
    ]);
  });
});
