import { defineBuildExtension, prisma } from '@kindgi/sdk/build';
import { describe, expect, it } from 'vitest';
import { KindgiDefinitionError } from '../src/index.js';

describe('@kindgi/sdk/build', () => {
  it('prisma() generates the client after the install, with the schema in the build context', () => {
    expect(prisma({ schema: 'prisma/schema.prisma' })).toEqual({
      name: 'prisma',
      contextFiles: ['prisma/schema.prisma'],
      postInstall: ['npx prisma generate --schema prisma/schema.prisma'],
    });
  });

  it('prisma() passes a config file and quotes paths for the shell', () => {
    expect(prisma({ schema: "db/my schema's.prisma", config: 'prisma.config.ts' })).toEqual({
      name: 'prisma',
      contextFiles: ["db/my schema's.prisma", 'prisma.config.ts'],
      postInstall: [`npx prisma generate --schema 'db/my schema'\\''s.prisma' --config prisma.config.ts`],
    });
  });

  it('defineBuildExtension checks and freezes an extension', () => {
    const extension = defineBuildExtension({
      name: 'chromium',
      systemPackages: ['chromium'],
      buildEnv: { PUPPETEER_SKIP_DOWNLOAD: '1' },
    });
    expect(Object.isFrozen(extension)).toBe(true);
    expect(() => defineBuildExtension({ name: 'x', buildEnv: { N: 1 } } as never)).toThrow(
      new KindgiDefinitionError('defineBuildExtension', 'buildEnv.N', '"buildEnv.N" must be a string'),
    );
    expect(() => prisma({} as never)).toThrow('prisma: "schema" must be a non-empty string, got nothing');
  });
});
