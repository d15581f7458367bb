import { existsSync } from 'node:fs';
import { mkdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runIndexer } from '@kindgi/indexer';
import { afterAll, describe, expect, it } from 'vitest';
import { copyPack, PACK_FILES, removeCopies } from './helpers.js';

afterAll(removeCopies);

const PINNED = { artifactVersion: '20260920.1', publishedAt: '2026-09-20T14:32:07.104Z' };

async function indexText(packDir: string, name: string): Promise<string> {
  const outputPath = join(packDir, 'out', name);
  const outcome = await runIndexer({ packDir, outputPath, ...PINNED });
  if (outcome.kind === 'err') throw new Error(`${outcome.error.code}: ${outcome.error.message}`);
  expect(outcome.value.warnings).toEqual([]);
  return readFile(outputPath, 'utf8');
}

describe('indexing the example pack', () => {
  it('is byte-identical twice, and after every file is touched in reverse order', async () => {
    const pack = await copyPack();
    const first = await indexText(pack, 'first.json');
    expect(await indexText(pack, 'second.json')).toBe(first);
    const base = Date.now() / 1000 + 60;
    for (const [i, file] of [...PACK_FILES].reverse().entries()) await utimes(join(pack, file), base + i, base + i);
    expect(await indexText(pack, 'third.json')).toBe(first);
  });

  it('lists every primitive with its schemas, config and declared env', async () => {
    const pack = await copyPack();
    const index = JSON.parse(await indexText(pack, 'index.json'));
    expect(index.env).toEqual({ required: ['ACME_API_BASE'], optional: ['LOG_LEVEL'] });
    expect(index.tools.map((t: { id: string; modulePath: string }) => [t.id, t.modulePath])).toEqual([
      ['acme.case-link', 'tools/case-link/index.ts'],
      ['acme.format-citation', 'tools/format-citation/index.ts'],
      ['acme.lookup-case', 'tools/lookup-case/index.ts'],
      ['acme.slow-report', 'tools/slow-report/index.ts'],
      ['acme.verify-citation', 'tools/verify-citation/index.ts'],
    ]);
    expect(index.tools[4].needsSpec).toEqual({ secrets: { CITATOR_KEY: { type: 'string', minLength: 20 } } });
    const lookup = index.tools[2];
    // Zod on the input side: a defaulted field is optional; on the output side, an optional field stays so.
    expect(lookup.input.required).toEqual(['caseId']);
    expect(lookup.input.properties.includeHistory).toEqual({
      type: 'boolean',
      default: false,
      description: 'Also return the case history',
    });
    expect(lookup.output.required).toEqual(['id', 'title', 'status', 'sources']);
    expect(lookup.effects).toEqual([{ kind: 'reads', resource: 'db:cases' }]);
    expect(index.tools[1].input.properties.style).toEqual({
      type: 'string',
      enum: ['short', 'long'],
      default: 'short',
    });
    expect(index.guardrails).toEqual([
      expect.objectContaining({
        id: 'acme.citations-checked',
        checkId: 'acme.checks.citations',
        checkModulePath: 'guardrails/citations-checked/index.ts',
        action: { 'on-violation': 'retry', maxRetries: 2 },
        config: { minCitations: 1, requireCitationTool: true },
      }),
    ]);
    // A tool definition an agent lists is pinned to its version, as Java's Agent.tool(Tool) pins it.
    expect(index.agents[0].tools).toEqual([
      { id: 'acme.lookup-case', range: '1.4.0' },
      { id: 'acme.format-citation', range: '1.4.0' },
      { id: 'acme.case-link', range: '1.4.0' },
      { id: 'acme.slow-report', range: '^1.4.0' },
    ]);
    expect(index.agents[0].guardrails).toEqual(['acme.citations-checked']);
    expect(index.flows[0]).toMatchObject({ id: 'acme.case-triage', kernelPayloadVersion: 1 });
  });

  it('reports an SDK definition error at import, and an SDK primitive in the wrong folder, naming the files', async () => {
    const pack = await copyPack();
    await mkdir(join(pack, 'tools/broken'));
    await writeFile(
      join(pack, 'tools/broken/index.ts'),
      "import { defineTool } from '@kindgi/sdk';\nexport default defineTool({ id: 'Echo', description: 'x', handler: () => ({}) });\n",
    );
    await writeFile(
      join(pack, 'tools/misplaced.ts'),
      "export { default } from '../guardrails/citations-checked/index.js';\n",
    );
    const outputPath = join(pack, 'out/index.json');
    const outcome = await runIndexer({ packDir: pack, outputPath, ...PINNED });
    if (outcome.kind === 'ok') throw new Error('a pack with broken files was indexed');
    const failed = outcome.error.fileErrors ?? [];
    expect(failed.map((e) => e.code)).toEqual(['file-import-failed', 'kind-mismatch']);
    expect(failed[0]?.message).toMatch(/^tools\/broken\/index\.ts: import failed: KindgiDefinitionError: defineTool: /);
    expect(failed[1]?.message).toBe(
      'tools/misplaced.ts: files under tools/ must default-export a tool, but this one exports a guardrail',
    );
    expect(existsSync(outputPath)).toBe(false);
  });
});
