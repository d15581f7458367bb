import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { kindgi, REPO_ROOT, removeTemps, runProgram, tempDir } from './helpers.js';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string;
};
// The CI virtualenv, where .ci/run installs the kindgi SDK (sdks/python), pydantic and pytest.
const venvBin = join(process.env.KINDGI_TEST_VENV ?? join(REPO_ROOT, '.ci/venv'), 'bin');
const python = join(venvBin, 'python');
if (!existsSync(python)) console.warn(`init-python.test.ts: skipped, ${python} is missing`);

afterAll(removeTemps);

describe.skipIf(!existsSync(python))('kindgi init --language python', () => {
  it('creates a pack whose pytest test passes as generated, and which the SDK indexes', async () => {
    const cwd = tempDir('init-python');
    const run = await kindgi(['init', 'acme-legal', '--language', 'python'], { cwd });
    expect(run.code, run.stderr).toBe(0);
    const dir = join(cwd, 'acme-legal');
    const pyproject = readFileSync(join(dir, 'pyproject.toml'), 'utf8');
    expect(pyproject).toContain('pack = { id = "acme-legal", version = "0.1.0" }');
    expect(pyproject).toContain(`cli = "${version}"`);
    expect(existsSync(join(dir, 'kindgiw'))).toBe(true);

    const test = await runProgram(python, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider'], { cwd: dir });
    expect(test.code, `${test.stdout}\n${test.stderr}`).toBe(0);
    expect(test.stdout).toMatch(/2 passed/);

    const out = join(cwd, 'index.json');
    const index = await runProgram(python, ['-m', 'kindgi.pack', 'index', '--pack-dir', dir, '--output', out], {
      cwd: dir,
    });
    expect(index.code, index.stderr).toBe(0);
    const written = JSON.parse(readFileSync(out, 'utf8'));
    expect(written.tools.map((tool: { id: string }) => tool.id)).toEqual(['acme-legal.greet']);
    expect(written.guardrails[0]).toMatchObject({
      id: 'acme-legal.answer-not-empty',
      checkId: 'acme-legal.checks.answer-not-empty',
    });
  }, 120_000);

  it('takes py as a name for python', async () => {
    const cwd = tempDir('init-py');
    const run = await kindgi(['init', 'acme', '--language', 'py', '--json'], { cwd });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ language: 'python', packId: 'acme' });
  });
});
