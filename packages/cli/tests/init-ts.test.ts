import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { kindgi, linkWorkspaceDependencies, removeTemps, runProgram, tempDir } from './helpers.js';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

afterAll(removeTemps);

describe('kindgi init --language ts', () => {
  it('creates a pack whose test passes as generated and which indexes', async () => {
    const cwd = tempDir('init-ts');
    const run = await kindgi(['init', 'legal-notes', '--json'], { cwd });
    expect(run.code, run.stderr).toBe(0);
    const created = JSON.parse(run.stdout) as { packId: string; files: string[] };
    expect(created.packId).toBe('legal-notes');
    const dir = join(cwd, 'legal-notes');
    expect(created.files).toEqual(
      expect.arrayContaining(['kindgi.config.ts', 'kindgiw', 'kindgiw.cmd', '.gitignore', 'package.json']),
    );
    expect(readFileSync(join(dir, 'kindgi.config.ts'), 'utf8')).toContain(`cli: '${version}'`);
    expect(readFileSync(join(dir, '.gitignore'), 'utf8')).toMatch(/^\.env\*$/m);
    expect(statSync(join(dir, 'kindgiw')).mode & 0o111).not.toBe(0);
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    expect(manifest.dependencies['@kindgi/sdk']).toBe(version);
    expect(readFileSync(join(dir, 'tools/greet/index.ts'), 'utf8')).toContain("id: 'legal-notes.greet'");

    linkWorkspaceDependencies(dir);
    const vitest = join(dir, 'node_modules/vitest/vitest.mjs');
    const test = await runProgram(process.execPath, [vitest, 'run'], { cwd: dir });
    expect(test.code, `${test.stdout}\n${test.stderr}`).toBe(0);
    expect(test.stdout).toContain('2 passed');

    const index = await kindgi(['index', '--json'], { cwd: dir });
    expect(index.code, index.stderr).toBe(0);
    expect(JSON.parse(index.stdout)).toMatchObject({ language: 'ts', counts: { tools: 1, guardrails: 1 } });
    const written = JSON.parse(readFileSync(join(dir, 'dist/index.json'), 'utf8'));
    expect(written.tools.map((tool: { id: string }) => tool.id)).toEqual(['legal-notes.greet']);
  }, 120_000);

  it('takes --id, and refuses a non-empty folder without writing anything', async () => {
    const cwd = tempDir('init-refuse');
    const dir = join(cwd, 'taken');
    mkdirSync(dir);
    writeFileSync(join(dir, 'notes.txt'), 'mine\n');
    const run = await kindgi(['init', 'taken', '--id', 'acme'], { cwd });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('is not empty');
    expect(readdirSync(dir)).toEqual(['notes.txt']);
    expect(readdirSync(cwd)).toEqual(['taken']);
  });

  it('creates in an empty folder, named with --id', async () => {
    const cwd = tempDir('init-empty');
    mkdirSync(join(cwd, 'Empty_Dir'));
    const run = await kindgi(['init', 'Empty_Dir', '--id', 'acme'], { cwd });
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(join(cwd, 'Empty_Dir/kindgi.config.ts'), 'utf8')).toContain("id: 'acme'");
  });

  it('refuses a bad pack id and an unknown language with exit 2 (Python: init-python.test.ts)', async () => {
    const cwd = tempDir('init-bad');
    const badId = await kindgi(['init', 'Bad_Name'], { cwd });
    expect(badId.code).toBe(2);
    expect(badId.stderr).toContain('is not a pack id');
    const unknown = await kindgi(['init', 'x', '--language', 'cobol'], { cwd });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown language "cobol"');
    expect(existsSync(join(cwd, 'x'))).toBe(false);
  });
});
