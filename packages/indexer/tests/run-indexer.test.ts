import { readFile, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runIndexer } from '../src/index.js';
import { copyBasicPack, PINNED, removePacks } from './helpers/packs.js';

afterAll(removePacks);

async function indexTo(packDir: string, name: string, extra: Record<string, string> = {}) {
  const outputPath = join(packDir, 'out', name);
  const outcome = await runIndexer({ packDir, outputPath, ...PINNED, ...extra });
  if (outcome.kind === 'err') throw new Error(outcome.error.message);
  return { report: outcome.value, text: await readFile(outputPath, 'utf8') };
}

describe('runIndexer on a well-formed pack', () => {
  it('writes every primitive, sorted by id, with relative module paths and converted schemas', async () => {
    const pack = await copyBasicPack();
    const { report, text } = await indexTo(pack, 'index.json');
    expect(report.counts).toEqual({ tools: 3, guardrails: 1, agents: 1, flows: 1 });
    expect(report.warnings).toEqual([]);
    const index = JSON.parse(text);
    expect(Object.keys(index)).toEqual([
      'agents',
      'artifactVersion',
      'env',
      'flows',
      'guardrails',
      'packId',
      'packVersion',
      'publishedAt',
      'tools',
      'v',
    ]);
    expect(index.v).toBe(1);
    expect(index.packId).toBe('basic');
    expect(index.publishedAt).toBe(PINNED.publishedAt);
    expect(index.env).toEqual({ required: ['API_BASE', 'BASIC_TOKEN'], optional: ['LOG_LEVEL'] });
    expect(index.tools.map((t: { id: string; modulePath: string }) => [t.id, t.modulePath])).toEqual([
      ['basic.echo', 'tools/echo/index.ts'],
      ['basic.shout', 'extra/shout.ts'],
      ['basic.sum', 'tools/sum/index.mjs'],
    ]);
    const echo = index.tools[0];
    // Input side: a field with a default is optional; output side: it is always there.
    expect(echo.input.required).toEqual(['text']);
    expect(echo.output.required).toEqual(['echoed', 'times']);
    expect(echo.input.properties.text).toEqual({ type: 'string', minLength: 1, description: 'What to echo back' });
    expect(echo.effects).toEqual([{ kind: 'reads', resource: 'memory' }]);
    expect(index.tools[1].output).toEqual({});
    const guardrail = index.guardrails[0];
    expect(guardrail).toMatchObject({
      id: 'basic.no-secrets',
      kind: 'zero-llm',
      action: { 'on-violation': 'halt' },
      severity: 'critical',
      checkModulePath: 'guardrails/no-secrets/index.ts',
      checkId: 'basic.checks.no-secrets',
      config: { patterns: ['sk-[a-z0-9]+'] },
    });
    // Checking the config fills no defaults into what the index records.
    expect(guardrail.config.maxHits).toBeUndefined();
    expect(index.agents[0]).toMatchObject({
      id: 'basic.helper',
      version: '2.0.0',
      modulePath: 'agents/helper/index.ts',
    });
    expect(index.flows[0]).toMatchObject({ id: 'basic.triage', version: '1.2.3', kernelPayloadVersion: 1 });
    expect(text.endsWith('}\n')).toBe(true);
    expect(text).toContain('\n  "agents": [\n');
    expect(text).not.toContain(pack);
  });

  it('gives byte-identical output twice, and after every file is touched in reverse order', async () => {
    const pack = await copyBasicPack();
    const first = await indexTo(pack, 'a.json');
    const second = await indexTo(pack, 'b.json');
    expect(second.text).toBe(first.text);
    const files = ['kindgi.config.ts', 'tools/echo/index.ts', 'tools/sum/index.mjs', 'extra/shout.ts'];
    files.push('guardrails/no-secrets/index.ts', 'agents/helper/index.ts', 'flows/triage/index.ts');
    const later = Date.now() / 1000 + 60;
    for (const [i, file] of [...files].reverse().entries()) await utimes(join(pack, file), later + i, later + i);
    const third = await indexTo(pack, 'c.json');
    expect(third.text).toBe(first.text);
  });

  it('sees an edited file on the next run (imports are cache-busted by mtime)', async () => {
    const pack = await copyBasicPack();
    await indexTo(pack, 'before.json');
    const file = join(pack, 'flows/triage/index.ts');
    const source = await readFile(file, 'utf8');
    await writeFile(file, source.replace("id: 'basic.triage'", "id: 'basic.triage-v2'"));
    const later = Date.now() / 1000 + 120;
    await utimes(file, later, later);
    const { text } = await indexTo(pack, 'after.json');
    expect(JSON.parse(text).flows[0].id).toBe('basic.triage-v2');
  });

  it('counts the default artifact version up within a UTC day', async () => {
    const pack = await copyBasicPack();
    const outputPath = join(pack, 'dist', 'index.json');
    const publishedAt = '2026-09-20T23:59:59.999Z';
    for (const expected of ['20260920.1', '20260920.2', '20260920.3']) {
      const outcome = await runIndexer({ packDir: pack, publishedAt });
      expect(outcome.kind).toBe('ok');
      expect(JSON.parse(await readFile(outputPath, 'utf8')).artifactVersion).toBe(expected);
    }
    await runIndexer({ packDir: pack, publishedAt: '2026-09-21T00:00:00Z' });
    const next = JSON.parse(await readFile(outputPath, 'utf8'));
    expect(next.artifactVersion).toBe('20260921.1');
    expect(next.publishedAt).toBe('2026-09-21T00:00:00.000Z');
  });

  it('leaves no temporary file next to the index', async () => {
    const pack = await copyBasicPack();
    await indexTo(pack, 'index.json');
    const { readdir } = await import('node:fs/promises');
    expect(await readdir(join(pack, 'out'))).toEqual(['index.json']);
  });
});
