import { cpSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  cleanupTempDirs,
  EXAMPLE_PACK_DIR,
  makeTempDir,
  readCredentials,
  startServer,
  stopAllServers,
  writeConfig,
} from './harness.js';
import { api, slowReportStep } from './http.js';

const PACK_PARTS = ['kindgi.config.ts', 'package.json', 'tools', 'guardrails', 'agents', 'flows', 'lib'];

/** A private copy of the example pack to edit (its dependencies are the original's, through a link). */
function copyExamplePack(root: string): string {
  const dir = join(root, 'pack');
  for (const part of PACK_PARTS) cpSync(join(EXAMPLE_PACK_DIR, part), join(dir, part), { recursive: true });
  symlinkSync(join(EXAMPLE_PACK_DIR, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return dir;
}

describe('a watched pack', () => {
  afterAll(async () => {
    await stopAllServers();
    cleanupTempDirs();
  });

  it('serves an edit to a tool without dropping the calls in flight', async () => {
    const root = makeTempDir('watch');
    const packDir = copyExamplePack(root);
    const dataDir = join(root, 'data');
    const configPath = writeConfig(root, dataDir, {
      packs: [{ dir: packDir, watch: true, env: { ACME_API_BASE: 'https://cases.acme.invalid' } }],
    });
    const server = await startServer(configPath);
    const { token } = readCredentials(dataDir);
    const first = await server.waitFor((record) => record.event === 'pack-child-serving', 'pack-child-serving');
    const citation = { input: { source: 'Brown v. Board', page: 483 } };
    const before = await api(server.url, token, 'POST', '/v1/tools/acme.format-citation/invoke', citation);
    expect(before.body).toEqual({ output: { citation: '[Brown v. Board, p. 483]' } });

    const slow = api(server.url, token, 'POST', '/v1/tools/acme.slow-report/invoke', {
      input: { steps: 20, stepMs: 250 },
    });
    await server.waitFor((record) => slowReportStep(record, 20) === 1, 'the slow call running in the first child');

    const tool = join(packDir, 'tools', 'format-citation', 'index.ts');
    const source = readFileSync(tool, 'utf8');
    // The handler's `return { citation: `[…]` };` gains a suffix.
    const edited = source.replace(']` };', '] (ed.)` };');
    expect(edited).not.toBe(source);
    writeFileSync(tool, edited);

    await server.waitFor((record) => record.event === 'pack-reloaded', 'pack-reloaded');
    const replacement = server.records.find(
      (record) => record.event === 'pack-child-serving' && record.replaced === first.pid,
    );
    expect(replacement?.pid).not.toBe(first.pid);
    const after = await api(server.url, token, 'POST', '/v1/tools/acme.format-citation/invoke', citation);
    expect(after.body).toEqual({ output: { citation: '[Brown v. Board, p. 483] (ed.)' } });

    // The call that began on the old code finishes there: the swap drains the old child, it does not drop it.
    expect(await slow).toMatchObject({ status: 200, body: { output: { stepsCompleted: 20 } } });
  });

  it('keeps the last good code serving through a broken save, and swaps on the next good one', async () => {
    const root = makeTempDir('watch-broken');
    const packDir = copyExamplePack(root);
    const dataDir = join(root, 'data');
    const configPath = writeConfig(root, dataDir, {
      packs: [{ dir: packDir, watch: true, env: { ACME_API_BASE: 'https://cases.acme.invalid' } }],
    });
    const server = await startServer(configPath);
    const { token } = readCredentials(dataDir);
    await server.waitFor((record) => record.event === 'pack-child-serving', 'pack-child-serving');
    const citation = { input: { source: 'Brown v. Board', page: 483 } };
    const call = () => api(server.url, token, 'POST', '/v1/tools/acme.format-citation/invoke', citation);
    expect((await call()).body).toEqual({ output: { citation: '[Brown v. Board, p. 483]' } });
    // Where the server wrote the pack's index (outside the data directory when packs run as another user).
    const serving = await server.waitFor((record) => record.event === 'pack-serving', 'pack-serving');
    const indexPath = String(serving.indexPath);
    const goodIndex = readFileSync(indexPath, 'utf8');

    const tool = join(packDir, 'tools', 'format-citation', 'index.ts');
    const source = readFileSync(tool, 'utf8');
    // A save that leaves the tool without its default export: the pack as saved cannot be indexed.
    writeFileSync(tool, source.replace('export default ', 'export const notDefault = '));
    const outcome = await server.waitFor(
      (record) => record.event === 'pack-reindex-failed' || record.event === 'pack-reloaded',
      'the broken save handled',
    );
    expect(outcome).toMatchObject({
      event: 'pack-reindex-failed',
      level: 'warn',
      problems: [{ code: 'no-default-export', file: 'tools/format-citation/index.ts' }],
    });
    expect(readFileSync(indexPath, 'utf8')).toBe(goodIndex);
    expect((await call()).body).toEqual({ output: { citation: '[Brown v. Board, p. 483]' } });

    writeFileSync(tool, source.replace(']` };', '] (ed.)` };'));
    await server.waitFor((record) => record.event === 'pack-reloaded', 'pack-reloaded');
    expect((await call()).body).toEqual({ output: { citation: '[Brown v. Board, p. 483] (ed.)' } });
  });
});
