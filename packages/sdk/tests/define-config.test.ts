import { describe, expect, it } from 'vitest';
import { prisma } from '../src/build.js';
import { defineConfig, KindgiDefinitionError } from '../src/index.js';

function messageOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof KindgiDefinitionError) return error.message;
    throw error;
  }
  throw new Error('expected a KindgiDefinitionError');
}

const pack = { id: 'acme', version: '1.0.0' };

describe('defineConfig', () => {
  it('returns the config frozen', () => {
    const config = defineConfig({
      pack,
      language: 'node',
      discovery: { tools: ['tools/**/*.ts', 'extra/**/*.ts'] },
      env: { required: ['API_BASE'], optional: ['LOG_LEVEL'] },
      image: { systemPackages: ['openssl'], extensions: [prisma({ schema: 'prisma/schema.prisma' })] },
    });
    expect(Object.isFrozen(config)).toBe(true);
    expect(config.image?.extensions?.[0]?.name).toBe('prisma');
  });

  it('reports every env problem at once, in the protocol words', () => {
    const env = { required: ['A', 'A', '1X', 'KINDGI_TOKEN'], optional: ['A'], other: [] };
    expect(messageOf(() => defineConfig({ pack, env } as never))).toBe(
      'defineConfig: `env` takes only `required` and `optional`, not `other`; ' +
        '"A" is listed twice in `env.required`; ' +
        '"1X" in `env.required` isn\'t an environment variable name; ' +
        '"KINDGI_TOKEN" in `env.required`: `KINDGI_*` names configure Kindgi, not the pack; ' +
        '"A" is in both `env.required` and `env.optional`',
    );
  });

  it.each([
    [{ pack: undefined }, 'defineConfig: "pack" must be an object {id, version}, got nothing'],
    [
      { pack: { id: 'Acme Pack', version: '1.0.0' } },
      'defineConfig: "pack.id" must be a kebab-case pack id (like "acme" or "acme-legal"), got "Acme Pack"',
    ],
    [{ pack: { id: 'acme', version: '' } }, 'defineConfig: "pack.version" must be a non-empty string, got ""'],
    [{ language: 'ruby' }, 'defineConfig: "language" must be one of node, python, java, scala, got "ruby"'],
    [
      { discovery: { tool: ['x'] } },
      'defineConfig: "discovery" takes only tools, guardrails, agents, flows, not "tool"',
    ],
    [{ discovery: { tools: 'tools/**' } }, 'defineConfig: "discovery.tools" must be a list of strings, got "tools/**"'],
    [{ env: { required: 'A' } }, 'defineConfig: `env.required` must be a list of names'],
    [
      { image: { extensions: [{ postInstall: ['x'] }] } },
      'defineConfig: image.extensions[0].name: "name" must be a non-empty string, got nothing',
    ],
  ])('names the field of an invalid config (%#)', (patch, message) => {
    expect(messageOf(() => defineConfig({ pack, ...(patch as object) } as never))).toBe(message);
  });
});
