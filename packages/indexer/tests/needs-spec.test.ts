import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type IndexerError, runIndexer } from '../src/index.js';
import { configText, makePack, PINNED, removePacks } from './helpers/packs.js';

afterAll(removePacks);

/** A tool module (TypeScript, importing the package's own `zod`) whose `needsSpec` is `needsSpec`. */
function secretTool(id: string, needsSpec: string): string {
  return `import { z } from 'zod';
export default { id: '${id}', input: { type: 'object' }, needsSpec: ${needsSpec}, handler: async () => ({}) };
`;
}

async function indexTools(files: Record<string, string>): Promise<Record<string, unknown>[]> {
  const pack = await makePack({ 'kindgi.config.mjs': configText(), ...files });
  const outcome = await runIndexer({ packDir: pack, ...PINNED });
  if (outcome.kind === 'err') throw new Error(`unexpected ${outcome.error.code}: ${outcome.error.message}`);
  const index = JSON.parse(await readFile(join(pack, 'dist/index.json'), 'utf8'));
  return index.tools;
}

async function failTools(files: Record<string, string>): Promise<IndexerError> {
  const pack = await makePack({ 'kindgi.config.mjs': configText(), ...files });
  const outcome = await runIndexer({ packDir: pack, ...PINNED });
  if (outcome.kind === 'ok') throw new Error('indexed a pack with a broken secret declaration');
  expect(existsSync(join(pack, 'dist'))).toBe(false);
  return outcome.error;
}

describe('needsSpec.secrets in index.json', () => {
  it('writes a Zod-declared secret as JSON Schema, a JSON-Schema one as given, and other keys as they are', async () => {
    const tools = await indexTools({
      'tools/zod.ts': secretTool(
        'acme.zod',
        "{ secrets: { CITATOR_KEY: z.string().min(20), REGION: z.enum(['eu', 'us']) }, settings: { tier: 'gold' } }",
      ),
      'tools/json.mjs': secretTool('acme.json', "{ secrets: { CITATOR_KEY: { type: 'string', minLength: 20 } } }"),
    });
    expect(tools.map((tool) => [tool.id, tool.needsSpec])).toEqual([
      ['acme.json', { secrets: { CITATOR_KEY: { type: 'string', minLength: 20 } } }],
      [
        'acme.zod',
        {
          secrets: { CITATOR_KEY: { type: 'string', minLength: 20 }, REGION: { type: 'string', enum: ['eu', 'us'] } },
          settings: { tier: 'gold' },
        },
      ],
    ]);
  });

  it('leaves needsSpec out of a tool that has none', async () => {
    const tools = await indexTools({
      'tools/plain.mjs': "export default { id: 'acme.plain', input: { type: 'object' }, handler() {} };\n",
    });
    expect(tools[0]).not.toHaveProperty('needsSpec');
  });
});

describe('a broken secret declaration fails the run, naming the file', () => {
  it.each(['citatorKey', '9LIVES', `K${'A'.repeat(128)}`])('secret-name-invalid: %j', async (name) => {
    const shown = JSON.stringify(name);
    const file = 'tools/bad-name.ts';
    const error = await failTools({ [file]: secretTool('acme.bad-name', `{ secrets: { ${shown}: z.string() } }`) });
    const message = `${file}: tool "acme.bad-name" declares the secret ${shown} in \`needsSpec.secrets\`: a secret name is 1 to 128 capital letters, digits and underscores, not starting with a digit (^[A-Z_][A-Z0-9_]{0,127}$)`;
    expect(error).toEqual({
      code: 'secret-name-invalid',
      file,
      message: `1 file(s) could not be indexed, so no index was written: ${file} (secret-name-invalid)`,
      fileErrors: [{ code: 'secret-name-invalid', file, message }],
    });
  });

  it.each([
    [
      'zod-conversion-failed',
      '{ secrets: { WHEN: z.date() } }',
      'tool "acme.broken" secret WHEN (Zod, input side) has no JSON Schema form at /: A Zod date cannot be represented in JSON Schema (input side) at /',
    ],
    [
      'manifest-validation-failed',
      "{ secrets: { KEY: 'string' } }",
      'tool "acme.broken" secret KEY must be a JSON Schema object or a Zod schema',
    ],
    [
      'manifest-validation-failed',
      "{ secrets: { KEY: { type: 'strng' } } }",
      'tool "acme.broken" secret KEY is not a valid JSON Schema: schema is invalid: data/type must be equal to one of the allowed values, data/type must be array, data/type must match a schema in anyOf',
    ],
    [
      'manifest-validation-failed',
      "{ secrets: ['KEY'] }",
      'tool "acme.broken": `needsSpec.secrets` must be an object of secret name → JSON Schema or Zod schema',
    ],
    ['manifest-validation-failed', "'KEY'", 'tool "acme.broken": `needsSpec` must be an object'],
  ])('%s: %s', async (code, needsSpec, problem) => {
    const file = 'tools/broken.ts';
    const error = await failTools({ [file]: secretTool('acme.broken', needsSpec) });
    expect(error.fileErrors).toEqual([{ code, file, message: `${file}: ${problem}` }]);
  });
});
