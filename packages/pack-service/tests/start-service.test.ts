import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPackLog } from '../src/log/log.js';
import { readBundleMap, readPackIndexFile } from '../src/process/index-file.js';
import { startPackService } from '../src/process/start.js';
import { basicIndexPath, basicPackDir, call, invokeBody, TOKEN } from './pack-helpers.js';

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'kindgi-pack-start-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('startPackService in process', () => {
  it('filters the given env only when envFilter is on, listens on port 0, and stops after draining', async () => {
    const lines: Record<string, unknown>[] = [];
    const env: Record<string, string | undefined> = { FIXTURE_REQUIRED: 'x', STRAY: 'value', PATH: '/bin' };
    const started = await startPackService({
      indexPath: basicIndexPath,
      moduleRoot: basicPackDir,
      port: 0,
      host: '127.0.0.1',
      token: TOKEN,
      envFilter: 'on',
      env,
      log: createPackLog({ write: (line) => lines.push(JSON.parse(line)) }),
    });
    if (started.kind === 'err') throw new Error(started.error.join('; '));
    const running = started.value;
    try {
      expect(env).toEqual({ FIXTURE_REQUIRED: 'x', PATH: '/bin' });
      expect(lines.find((r) => r.event === 'env-dropped')?.names).toEqual(['STRAY']);
      expect(running.url).toBe(`http://127.0.0.1:${running.port}`);
      const reply = await call(running.url, '/v1/invoke', { body: invokeBody('fixture.echo', { message: 'm' }) });
      expect(reply.json.output).toEqual({ message: 'm' });
      expect(lines.map((record) => record.event)).toEqual(['env-dropped', 'listening', 'call']);
      expect(lines[2]).toMatchObject({
        event: 'call',
        target: 'tool',
        id: 'fixture.echo',
        durationMs: expect.any(Number),
        outcome: 'ok',
      });
    } finally {
      await running.stop(1000);
    }
    expect(running.server.listening).toBe(false);
  });

  it('leaves an in-process env alone without envFilter', async () => {
    const env: Record<string, string | undefined> = { FIXTURE_REQUIRED: 'x', STRAY: 'value' };
    const started = await startPackService({
      indexPath: basicIndexPath,
      moduleRoot: basicPackDir,
      port: 0,
      host: '127.0.0.1',
      token: TOKEN,
      env,
      log: createPackLog({ write: () => {} }),
    });
    if (started.kind === 'err') throw new Error(started.error.join('; '));
    await started.value.stop(0);
    expect(env.STRAY).toBe('value');
  });
});

describe('reading the index and the bundle map', () => {
  it('lists every shape problem of an index', async () => {
    const path = join(tmp, 'bad.json');
    writeFileSync(
      path,
      JSON.stringify({
        v: 1,
        packId: '',
        packVersion: '1',
        artifactVersion: '1',
        tools: [{ id: 'a' }, 3],
        guardrails: {},
      }),
    );
    const read = await readPackIndexFile(path);
    expect(read).toEqual({
      kind: 'err',
      error: [
        `Cannot read the pack index: ${path}: \`packId\` must be a non-empty string`,
        `Cannot read the pack index: ${path}: \`tools[0]\` (a) needs a string \`modulePath\``,
        `Cannot read the pack index: ${path}: \`tools[1]\` needs a string \`id\``,
        `Cannot read the pack index: ${path}: \`guardrails\` must be a list`,
      ],
    });
    writeFileSync(path, '[]');
    expect(await readPackIndexFile(path)).toEqual({
      kind: 'err',
      error: [`Cannot read the pack index: ${path}: it is not a JSON object`],
    });
    writeFileSync(path, '{');
    const broken = await readPackIndexFile(path);
    expect(broken.kind === 'err' && broken.error[0]).toMatch(/^Cannot read the pack index: .*bad\.json: .*JSON/);
  });

  it('reads a bundle map and refuses entries that are not paths', async () => {
    const path = join(tmp, 'map.json');
    writeFileSync(path, JSON.stringify({ 'tools/a.ts': 'tools/a.mjs' }));
    const read = await readBundleMap(path);
    expect(read.kind === 'ok' && [...read.value]).toEqual([['tools/a.ts', 'tools/a.mjs']]);
    writeFileSync(path, JSON.stringify({ 'tools/a.ts': 3 }));
    expect(await readBundleMap(path)).toEqual({
      kind: 'err',
      error: [
        `Cannot read the bundle map: ${path}: the bundle of "tools/a.ts" must be a non-empty path relative to the module root, inside it (no "..", not absolute)`,
      ],
    });
  });

  it('refuses bundle paths that leave the module root, as the indexer does', async () => {
    const path = join(tmp, 'escape.json');
    for (const bundle of ['../outside.mjs', '/etc/passwd.mjs', 'tools/../../x.mjs']) {
      writeFileSync(path, JSON.stringify({ 'tools/a.ts': bundle }));
      const read = await readBundleMap(path);
      expect(read.kind === 'err' && read.error[0]).toContain('inside it (no "..", not absolute)');
    }
  });
});
