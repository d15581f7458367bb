import { defineBuildExtension, prisma, validateImageConfig } from '@kindgi/sdk/build';
import { describe, expect, it } from 'vitest';
import { defineConfig, KindgiDefinitionError } from '../src/index.js';

const pack = { id: 'acme', version: '1.0.0' };
const DIGEST = 'a'.repeat(64);

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

  it('an image names its build secrets (names only) and pins its base image by digest', () => {
    const config = defineConfig({
      pack,
      image: {
        secretEnv: ['NPM_TOKEN', 'sentry_auth'],
        buildEnv: { NODE_OPTIONS: '--max-old-space-size=2048' },
        baseImage: `node:24-slim@sha256:${DIGEST}`,
      },
    });
    expect(config.image?.secretEnv).toEqual(['NPM_TOKEN', 'sentry_auth']);
    const refused = (image: unknown) => () => defineConfig({ pack, image } as never);
    expect(refused({ secretEnv: ['NPM-TOKEN'] })).toThrow(
      'defineConfig: "image.secretEnv[0]" must be an environment variable name, got "NPM-TOKEN"',
    );
    expect(refused({ secretEnv: 'NPM_TOKEN' })).toThrow('"image.secretEnv" must be a list of strings');
    expect(refused({ secretEnv: ['A', 'A'] })).toThrow('"image.secretEnv[1]": "A" is listed twice');
    expect(refused({ secretEnv: ['TOKEN'], buildEnv: { TOKEN: 'x' } })).toThrow(
      '"image.secretEnv[0]": "TOKEN" is also in image.buildEnv',
    );
    expect(refused({ baseImage: 'node:24-slim' })).toThrow('"image.baseImage" must be an image pinned by digest');
  });

  it('refuses build environment names, system packages and context files the Containerfile cannot hold', () => {
    const refused = (image: unknown) => () => defineConfig({ pack, image } as never);
    expect(refused({ buildEnv: { 'BAD NAME': '1' } })).toThrow(
      '"image.buildEnv" has "BAD NAME", which isn\'t an environment variable name',
    );
    expect(refused({ buildEnv: { A: 'one\ntwo' } })).toThrow('"image.buildEnv.A" must be one line');
    expect(refused({ systemPackages: ['curl; rm -rf /'] })).toThrow(
      '"image.systemPackages[0]" must be a Debian package name',
    );
    expect(() => defineBuildExtension({ name: 'x', contextFiles: ['../secrets.txt'] })).toThrow(
      '"contextFiles[0]" must be a path inside the pack',
    );
    expect(() => defineBuildExtension({ name: 'x', contextFiles: ['config/.env.production'] })).toThrow(
      'no "..", glob or .env file',
    );
    expect(() => defineBuildExtension({ name: 'two\nlines' })).toThrow('"name" must be one line of text');
    expect(() => defineBuildExtension({ name: 'x', postInstall: ['echo a\necho b'] })).toThrow(
      '"postInstall[0]" must be one line',
    );
  });

  it('names the failing extension of an image', () => {
    const image = {
      extensions: [prisma({ schema: 'prisma/schema.prisma' }), { name: 'chromium', systemPackages: [3] }],
    };
    expect(() => defineConfig({ pack, image } as never)).toThrow(
      'defineConfig: image.extensions[1].systemPackages[0] (extension "chromium"):',
    );
  });

  it('validateImageConfig checks an image read from a JSON config, as a Result', () => {
    expect(validateImageConfig(undefined)).toEqual({ kind: 'ok', value: undefined });
    expect(validateImageConfig({ secretEnv: ['NPM_TOKEN'] })).toEqual({
      kind: 'ok',
      value: { secretEnv: ['NPM_TOKEN'] },
    });
    expect(validateImageConfig({ extensions: [{ name: 'broken', postInstall: 'npm test' }] })).toEqual({
      kind: 'err',
      error:
        'image.extensions[0].postInstall (extension "broken"): "postInstall" must be a list of strings, got "npm test"',
    });
  });
});
