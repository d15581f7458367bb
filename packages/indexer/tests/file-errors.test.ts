import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type IndexerError, type IndexerReport, runIndexer } from '../src/index.js';
import { configText, makePack, PINNED, removePacks, toolText } from './helpers/packs.js';

afterAll(removePacks);

/** Indexes a pack made of `files` (plus a config and one good tool) and returns its report. */
async function indexWith(files: Record<string, string>): Promise<IndexerReport> {
  const pack = await makePack({ 'kindgi.config.mjs': configText(), 'tools/good.mjs': toolText('acme.good'), ...files });
  const outcome = await runIndexer({ packDir: pack, ...PINNED });
  if (outcome.kind === 'err') throw new Error(`unexpected ${outcome.error.code}: ${outcome.error.message}`);
  return outcome.value;
}

/** Indexes a pack made of `files` (plus a config and one good tool) that must fail; nothing may be written. */
async function failWith(files: Record<string, string>): Promise<IndexerError> {
  const pack = await makePack({ 'kindgi.config.mjs': configText(), 'tools/good.mjs': toolText('acme.good'), ...files });
  const outcome = await runIndexer({ packDir: pack, ...PINNED });
  if (outcome.kind === 'ok') throw new Error(`indexed a broken pack: ${JSON.stringify(outcome.value)}`);
  expect(existsSync(join(pack, 'dist'))).toBe(false);
  return outcome.error;
}

const ZOD_DATE_TOOL = `import { z } from 'zod';
export default { id: 'acme.dated', inputZod: z.object({ when: z.date() }), handler: async () => ({}) };
`;

describe('file errors: the run fails, names every failing file with its code, and writes nothing', () => {
  it.each([
    [
      'file-import-failed',
      { 'tools/broken.mjs': "throw new Error('cannot start');\n" },
      'tools/broken.mjs: import failed: Error: cannot start',
    ],
    [
      'no-default-export',
      { 'tools/named.mjs': "export const tool = { id: 'acme.named', handler() {} };\n" },
      'tools/named.mjs: has no default export: write `export default defineTool({ … })` (or defineGuardrail, defineAgent, defineFlow)',
    ],
    [
      'kind-mismatch',
      { 'tools/agent.mjs': "export default { id: 'acme.agent', instructions: 'hi' };\n" },
      'tools/agent.mjs: files under tools/ must default-export a tool, but this one exports an agent',
    ],
    [
      'kind-mismatch',
      { 'flows/text.mjs': "export default 'not a flow';\n" },
      'flows/text.mjs: files under flows/ must default-export a flow, but this one exports a string',
    ],
    [
      'zod-conversion-failed',
      { 'tools/dated.ts': ZOD_DATE_TOOL },
      'tools/dated.ts: tool "acme.dated" input (Zod, input side) has no JSON Schema form at /properties/when: A Zod date cannot be represented in JSON Schema (input side) at /properties/when',
    ],
    [
      'manifest-validation-failed',
      {
        'tools/wrapped.mjs':
          "export default { kind: 'err', error: { code: 'definition-invalid', message: 'defineTool: \"id\" must be kebab-case' } };\n",
      },
      'tools/wrapped.mjs: the default export is an error Result: defineTool: "id" must be kebab-case',
    ],
    [
      'manifest-validation-failed',
      { 'tools/no-handler.mjs': "export default { id: 'acme.nohandler', input: { type: 'object' } };\n" },
      'tools/no-handler.mjs: tool "acme.nohandler" needs a `handler` function',
    ],
    [
      'manifest-validation-failed',
      { 'tools/array-input.mjs': "export default { id: 'acme.arr', input: { type: 'array' }, handler() {} };\n" },
      'tools/array-input.mjs: tool "acme.arr" input must be an object schema (a tool\'s input is a JSON object)',
    ],
    [
      'manifest-validation-failed',
      {
        'tools/bad-schema.mjs':
          "export default { id: 'acme.bad', input: { type: 'object', properties: { a: { type: 'strin' } } }, handler() {} };\n",
      },
      'tools/bad-schema.mjs: tool "acme.bad" input is not a valid JSON Schema: schema is invalid: data/properties/a/type must be equal to one of the allowed values, data/properties/a/type must be array, data/properties/a/type must match a schema in anyOf',
    ],
    [
      'manifest-validation-failed',
      {
        'guardrails/cfg.mjs': `export default {
  id: 'acme.cfg', action: 'halt', check: 'must-cite',
  configSchema: { type: 'object', properties: { min: { type: 'integer', default: 1 } }, required: ['min'] },
  config: {},
};
`,
      },
      'guardrails/cfg.mjs: guardrail "acme.cfg" config does not match its schema at /: must have required property \'min\'',
    ],
    [
      'manifest-validation-failed',
      { 'tools/dup.mjs': toolText('acme.good') },
      'tools/good.mjs: tool id "acme.good" is already defined by tools/dup.mjs; the first is kept',
    ],
    [
      'reserved-check-id',
      {
        'guardrails/mine.mjs':
          "export default { id: 'acme.mine', action: 'halt', check: { id: 'must-cite', evaluate: () => ({ passed: true }) } };\n",
      },
      'guardrails/mine.mjs: guardrail "acme.mine" ships its own check under the built-in check id "must-cite", which the runtime would replace with the built-in; name it "acme.checks.<name>", or use the built-in with `check: \'must-cite\'`',
    ],
    [
      'reserved-check-id',
      {
        'guardrails/exported.mjs': `export const extra = { id: 'tool-order', evaluate: () => ({ passed: true }) };
export default { id: 'acme.exported', action: 'log-only', check: 'acme.checks.other' };
`,
      },
      'guardrails/exported.mjs: export "extra" ships its own check under the built-in check id "tool-order", which the runtime would replace with the built-in; name it "acme.checks.<name>", or use the built-in with `check: \'tool-order\'`',
    ],
    [
      'zod-conversion-failed',
      {
        'guardrails/zod-config.ts': `import { z } from 'zod';
export default { id: 'acme.zc', action: 'halt', check: 'must-cite', configZod: z.object({ big: z.bigint() }) };
`,
      },
      'guardrails/zod-config.ts: guardrail "acme.zc" configSchema (Zod, input side) has no JSON Schema form at /properties/big: A Zod bigint cannot be represented in JSON Schema (input side) at /properties/big',
    ],
    [
      'zod-conversion-failed',
      {
        'tools/zod-output.ts': `import { z } from 'zod';
export default { id: 'acme.zo', outputZod: z.object({ n: z.string().transform((v) => v.length) }), handler: async () => ({}) };
`,
      },
      'tools/zod-output.ts: tool "acme.zo" output (Zod, output side) has no JSON Schema form at /properties/n: A Zod transform cannot be represented in JSON Schema (output side) at /properties/n',
    ],
  ])('%s', async (code, files, message) => {
    const file = message.slice(0, message.indexOf(':'));
    const error = await failWith(files);
    expect(error).toEqual({
      code,
      file,
      message: `1 file(s) could not be indexed, so no index was written: ${file} (${code})`,
      fileErrors: [{ code, file, message }],
    });
  });

  it('ambiguous-kind: a custom-pattern file whose export has no primitive shape', async () => {
    const pack = await makePack({
      'kindgi.config.mjs': configText("discovery: { tools: ['tools/**/*.mjs', 'lib/**/*.mjs'] }"),
      'tools/good.mjs': toolText('acme.good'),
      'lib/helper.mjs': 'export default { id: 42 };\n',
    });
    const outcome = await runIndexer({ packDir: pack, ...PINNED });
    expect(outcome.kind === 'err' && outcome.error.fileErrors).toEqual([
      {
        code: 'ambiguous-kind',
        file: 'lib/helper.mjs',
        message:
          'lib/helper.mjs: matched by discovery.tools outside the tools/, guardrails/, agents/ and flows/ folders, and its default export is an object that has the shape of no primitive: export a tool ({ id, handler }), a guardrail ({ id, action, check }), an agent ({ id, instructions }) or a flow ({ id, nodes, edges })',
      },
    ]);
  });

  it('reports every broken file of a pack together, in path order, the first one giving the code', async () => {
    const error = await failWith({
      'tools/a-broken.mjs': "throw new Error('a');\n",
      'flows/b.mjs': 'export default 1;\n',
      'agents/c.mjs': 'export const x = 1;\n',
    });
    expect(error.fileErrors?.map((e) => [e.code, e.file])).toEqual([
      ['no-default-export', 'agents/c.mjs'],
      ['kind-mismatch', 'flows/b.mjs'],
      ['file-import-failed', 'tools/a-broken.mjs'],
    ]);
    expect(error).toMatchObject({ code: 'no-default-export', file: 'agents/c.mjs' });
  });

  it('leaves the previous index untouched when a later run fails', async () => {
    const pack = await makePack({ 'kindgi.config.mjs': configText(), 'tools/good.mjs': toolText('acme.good') });
    const first = await runIndexer({ packDir: pack, ...PINNED });
    expect(first.kind).toBe('ok');
    const indexPath = join(pack, 'dist/index.json');
    const before = await readFile(indexPath, 'utf8');
    await writeFile(join(pack, 'tools/good.mjs'), 'export const notDefault = 1;\n');
    const second = await runIndexer({ packDir: pack, artifactVersion: '2', publishedAt: PINNED.publishedAt });
    expect(second).toMatchObject({ kind: 'err', error: { code: 'no-default-export', file: 'tools/good.mjs' } });
    expect(await readFile(indexPath, 'utf8')).toBe(before);
  });
});

describe('warnings', () => {
  it('check-id-unprefixed: a shipped check outside the pack id; a named built-in is not flagged', async () => {
    const report = await indexWith({
      'guardrails/loose.mjs':
        "export default { id: 'acme.loose', action: 'halt', check: { id: 'loose-check', evaluate: () => ({ passed: true }) } };\n",
      'guardrails/builtin.mjs': "export default { id: 'acme.builtin', action: 'halt', check: 'must-cite' };\n",
    });
    expect(report.warnings).toEqual([
      {
        code: 'check-id-unprefixed',
        file: 'guardrails/loose.mjs',
        checkId: 'loose-check',
        message:
          'guardrails/loose.mjs: check "loose-check" does not start with the pack id "acme."; packs in a tenant share one space of check names, so name it "acme.checks.<name>"',
      },
    ]);
    expect(report.counts.guardrails).toBe(2);
  });
});
