import { chmod, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runIndexer } from '../src/index.js';
import { configText, makePack, PINNED, removePacks, toolText } from './helpers/packs.js';

afterAll(removePacks);

describe('errors that stop the run', () => {
  it('config-not-found', async () => {
    const pack = await makePack({ 'tools/a.mjs': toolText('acme.a') });
    const outcome = await runIndexer({ packDir: pack });
    expect(outcome).toMatchObject({ kind: 'err', error: { code: 'config-not-found' } });
  });

  it('discovery-empty: names the patterns it tried', async () => {
    const pack = await makePack({ 'kindgi.config.mjs': configText(), 'lib/a.mjs': toolText('acme.a') });
    const outcome = await runIndexer({ packDir: pack });
    expect(outcome).toEqual({
      kind: 'err',
      error: {
        code: 'discovery-empty',
        message: `Discovery found nothing to index: no file under ${pack} matches the patterns (tools: tools/**/*.{ts,js,mjs}; guardrails: guardrails/**/*.{ts,js,mjs}; agents: agents/**/*.{ts,js,mjs}; flows: flows/**/*.{ts,js,mjs})`,
      },
    });
  });

  it('language-mismatch: a Python pack names the Python indexer', async () => {
    const pack = await makePack({ 'pyproject.toml': '[tool.kindgi.pack]\nid = "acme"\nversion = "1.0.0"\n' });
    const outcome = await runIndexer({ packDir: pack });
    expect(outcome).toMatchObject({
      kind: 'err',
      error: {
        code: 'language-mismatch',
        message:
          'pyproject.toml declares a python pack; kindgi-index reads Node packs only: index it with the Python SDK: run `python -m kindgi.pack index` in the pack folder',
      },
    });
  });

  it('language-mismatch: a Java pack names the Java indexer', async () => {
    const pack = await makePack({ 'kindgi.config.json': '{"pack":{"id":"acme","version":"1"},"language":"java"}' });
    const outcome = await runIndexer({ packDir: pack });
    expect(outcome.kind === 'err' && outcome.error.code).toBe('language-mismatch');
    expect(outcome.kind === 'err' && outcome.error.message).toContain('com.kindgi.pack.Main index --pack-dir .');
  });

  it('output-write-failed: the output folder cannot be created', async () => {
    const pack = await makePack({
      'kindgi.config.mjs': configText(),
      'tools/a.mjs': toolText('acme.a'),
      blocker: 'a file\n',
    });
    const outputPath = join(pack, 'blocker', 'index.json');
    const outcome = await runIndexer({ packDir: pack, outputPath, ...PINNED });
    expect(outcome).toMatchObject({ kind: 'err', error: { code: 'output-write-failed', file: outputPath } });
    expect(outcome.kind === 'err' && outcome.error.message).toMatch(
      new RegExp(`^Could not write ${outputPath}: Error: EEXIST`),
    );
  });

  it('output-write-failed: a read-only output folder (skipped as root, which may write anywhere)', async () => {
    if (process.getuid?.() === 0) return;
    const pack = await makePack({ 'kindgi.config.mjs': configText(), 'tools/a.mjs': toolText('acme.a') });
    await mkdir(join(pack, 'ro'));
    await chmod(join(pack, 'ro'), 0o500);
    const outcome = await runIndexer({ packDir: pack, outputPath: join(pack, 'ro/index.json'), ...PINNED });
    expect(outcome).toMatchObject({ kind: 'err', error: { code: 'output-write-failed' } });
    await chmod(join(pack, 'ro'), 0o700);
  });

  it('options-invalid: publishedAt that is not an ISO time', async () => {
    const pack = await makePack({ 'kindgi.config.mjs': configText(), 'tools/a.mjs': toolText('acme.a') });
    const outcome = await runIndexer({ packDir: pack, publishedAt: 'yesterday' });
    expect(outcome).toEqual({
      kind: 'err',
      error: {
        code: 'options-invalid',
        message: 'publishedAt must be an ISO 8601 time such as 2026-09-20T14:32:07.104Z, got "yesterday"',
      },
    });
  });
});
