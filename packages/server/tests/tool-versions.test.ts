import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cleanupTempDirs,
  makeTempDir,
  type RunningServer,
  startServer,
  stopAllServers,
  writeConfig,
} from './harness.js';
import { api } from './http.js';
import { copyExamplePack } from './pack-fixtures.js';

// Two packs serve one tool id at two versions (and one check id under two guardrails): every call must
// reach the pack that has what it asked for, not the pack that serves the newest version of the id.
const TOKEN = 'tok-tool-versions-0001';
const ENV = { ACME_API_BASE: 'https://cases.acme.invalid' };
const citation = { source: 'Brown v. Board', page: 483 };

/** A copy of the example pack whose citation tool names a version of its own. */
function packCopy(root: string, version: string): { dir: string; edit(file: string, from: string, to: string): void } {
  const dir = copyExamplePack(root);
  const edit = (file: string, from: string, to: string) => {
    const path = join(dir, file);
    const source = readFileSync(path, 'utf8');
    if (!source.includes(from)) throw new Error(`${file} no longer contains ${from}`);
    writeFileSync(path, source.replace(from, to));
  };
  edit(
    'tools/format-citation/index.ts',
    "id: 'acme.format-citation',",
    `id: 'acme.format-citation', version: '${version}',`,
  );
  return { dir, edit };
}

/** The example pack as `acme-next` 2.0.0: its citation tool and its guardrail's check mark their answers. */
function nextPack(root: string): string {
  const { dir, edit } = packCopy(root, '2.0.0');
  edit('kindgi.config.ts', "pack: { id: 'acme', version: '1.4.0' }", "pack: { id: 'acme-next', version: '2.0.0' }");
  edit('tools/format-citation/index.ts', ']` };', '] (v2)` };');
  edit('guardrails/citations-checked/index.ts', "id: 'acme.citations-checked'", "id: 'acme-next.citations-checked'");
  edit('guardrails/citations-checked/index.ts', 'needed` };', 'needed (v2)` };');
  return dir;
}

describe('one tool id in two packs at two versions (dist/main.js)', () => {
  let server: RunningServer;

  beforeAll(async () => {
    const root = makeTempDir('tool-versions');
    const config = writeConfig(root, join(root, 'data'), {
      tokens: [{ token: TOKEN, tenantId: 'tenant-v' }],
      packs: [
        // The example pack as it is: its citation tool names no version, so it has the pack's 1.4.0.
        { dir: copyExamplePack(join(root, 'acme')), env: ENV },
        { dir: nextPack(join(root, 'acme-next')), env: ENV },
      ],
    });
    server = await startServer(config);
  }, 120_000);

  afterAll(async () => {
    await stopAllServers();
    cleanupTempDirs();
  }, 60_000);

  const invoke = (body: Record<string, unknown>) =>
    api(server.url, TOKEN, 'POST', '/v1/tools/acme.format-citation/invoke', { input: citation, ...body });

  it('lists both versions, newest first, under the newest pack', async () => {
    const tool = await api(server.url, TOKEN, 'GET', '/v1/tools/acme.format-citation');
    expect(tool.body).toMatchObject({ packId: 'acme-next', versions: ['2.0.0', '1.4.0'] });
  });

  it('sends a call without a version to the newest, and a versioned call to the pack with that version', async () => {
    expect((await invoke({})).body).toEqual({ output: { citation: '[Brown v. Board, p. 483] (v2)' } });
    expect((await invoke({ version: '2.0.0' })).body).toEqual({
      output: { citation: '[Brown v. Board, p. 483] (v2)' },
    });
    expect((await invoke({ version: '1.4.0' })).body).toEqual({ output: { citation: '[Brown v. Board, p. 483]' } });
  });

  it('runs an older version in the pack that has it', async () => {
    const run = await api(server.url, TOKEN, 'POST', '/v1/runs', {
      toolId: 'acme.format-citation',
      version: '1.4.0',
      input: citation,
      options: { wait: true },
    });
    expect(run).toMatchObject({
      status: 201,
      body: { status: 'completed', output: { citation: '[Brown v. Board, p. 483]' } },
    });
  });

  it("evaluates a guardrail's check in the guardrail's pack when two packs have that check id", async () => {
    const trace = { runId: 'run-v', tenantId: 'tenant-v', output: 'no citations here', mode: 'ci' };
    const evaluate = (id: string) => api(server.url, TOKEN, 'POST', `/v1/guardrails/${id}/evaluate`, { trace });
    const first = await evaluate('acme.citations-checked');
    const next = await evaluate('acme-next.citations-checked');
    expect(first.body).toMatchObject({ checkId: 'acme.checks.citations', result: { passed: false } });
    expect(next.body).toMatchObject({ checkId: 'acme.checks.citations', result: { passed: false } });
    expect((first.body as { result: { reason: string } }).result.reason).not.toContain('(v2)');
    expect((next.body as { result: { reason: string } }).result.reason).toContain('(v2)');
  });
});
