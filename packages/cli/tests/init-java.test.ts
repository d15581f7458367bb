import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kindgi, REPO_ROOT, removeTemps, runProgram, tempDir } from './helpers.js';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string;
};
const hasMaven = spawnSync('mvn', ['--version'], { stdio: 'ignore' }).status === 0;
if (!hasMaven) console.warn('init-java.test.ts: skipped, `mvn` is not on PATH (Java 17 + Maven 3.8 run it)');

afterAll(removeTemps);

describe.skipIf(!hasMaven)('kindgi init --language java', () => {
  beforeAll(() => {
    // The SDK and the packs' parent POM in the local Maven repository, as docs/java.md installs them.
    execFileSync('mvn', ['-B', '-q', '-f', join(REPO_ROOT, 'sdks/java/pom.xml'), 'install', '-DskipTests'], {
      stdio: 'pipe',
    });
  }, 600_000);

  it('creates a pack whose test passes with mvn as generated, and which kindgi index indexes', async () => {
    const cwd = tempDir('init-java');
    const run = await kindgi(['init', 'acme-legal', '--language', 'java'], { cwd });
    expect(run.code, run.stderr).toBe(0);
    const dir = join(cwd, 'acme-legal');
    const config = JSON.parse(readFileSync(join(dir, 'kindgi.config.json'), 'utf8'));
    expect(config).toMatchObject({ language: 'java', cli: version, pack: { id: 'acme-legal' } });

    const test = await runProgram('mvn', ['-B', '-q', '-o', 'test'], { cwd: dir });
    expect(test.code, `${test.stdout}\n${test.stderr}`).toBe(0);
    const report = readFileSync(join(dir, 'target/surefire-reports/TEST-acme_legal.PackTest.xml'), 'utf8');
    expect(report).toMatch(/tests="2"/);
    expect(report).toMatch(/failures="0"/);

    const index = await kindgi(['index', '--json'], { cwd: dir });
    expect(index.code, index.stderr).toBe(0);
    expect(JSON.parse(index.stdout)).toMatchObject({ language: 'java', counts: { tools: 1, guardrails: 1 } });
    const written = JSON.parse(readFileSync(join(dir, 'target/index.json'), 'utf8'));
    expect(written.tools[0].id).toBe('acme-legal.greet');
    expect(written.tools[0].modulePath).toBe('src/main/java/acme_legal/tools/Greet.java');
  }, 600_000);
});
