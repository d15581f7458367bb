import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { installJavaSdk } from '@kindgi/test-services/java-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cleanup,
  groupGone,
  invoke,
  makeTempDir,
  processesMentioning,
  REPO_ROOT,
  readDevFile,
  startDev,
} from './dev-harness.js';
import { kindgi } from './helpers.js';

const hasMaven = spawnSync('mvn', ['--version'], { stdio: 'ignore' }).status === 0;
if (!hasMaven) console.warn('dev-java.test.ts: skipped, `mvn` is not on PATH (Java 17 + Maven 3.8 run it)');

const PACK_ID = 'acme-legal';
const TOOL_ID = `${PACK_ID}.greet`;
const TOOL_PATH = 'src/main/java/acme_legal/tools/Greet.java';
// The generated tool's one line of work; each edit changes what it answers.
const WORK = 'return new Output(input.greeting() + ", " + input.name() + "!");';

describe.skipIf(!hasMaven)('kindgi dev on a Java pack', () => {
  beforeAll(() => installJavaSdk(REPO_ROOT), 600_000);
  afterAll(cleanup);

  it('serves, recompiles on save, keeps the last good code on a compile error (file:line:col), stops on SIGINT', async () => {
    const cwd = makeTempDir('dev-java');
    const init = await kindgi(['init', PACK_ID, '--language', 'java'], { cwd });
    expect(init.code, init.stderr).toBe(0);
    const packDir = join(cwd, PACK_ID);
    const toolFile = join(packDir, TOOL_PATH);
    const generated = readFileSync(toolFile, 'utf8');
    expect(generated).toContain(WORK);

    const dev = startDev(packDir);
    await dev.waitFor((line) => line.event === 'serving', 'serving', 0, 240_000);
    const file = readDevFile(packDir);
    const call = () => invoke(file.url, file.token, TOOL_ID, { name: 'Ada' });
    const first = await call();
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.output).toEqual({ message: 'Hello, Ada!' });

    // A save: Maven recompiles, and the next call runs the new code.
    let mark = dev.lines.length;
    writeFileSync(toolFile, generated.replace(WORK, WORK.replace('"!"', '"! (v2)"')));
    await dev.waitFor((line) => line.event === 'reindexed', 'reindexed', mark, 240_000);
    expect((await call()).body.output).toEqual({ message: 'Hello, Ada! (v2)' });

    // A compile error: printed as file:line:col, and the last good code keeps serving.
    mark = dev.lines.length;
    const broken = generated.replace(WORK, `int oops = ;\n    ${WORK}`);
    writeFileSync(toolFile, broken);
    const failed = await dev.waitFor((line) => line.event === 'reindex-failed', 'reindex-failed', mark, 240_000);
    const row = broken.split('\n').findIndex((text) => text.includes('int oops = ;')) + 1;
    expect(failed.problems).toContainEqual(expect.stringMatching(new RegExp(`^${TOOL_PATH}:${row}:\\d+: `)));
    const during = await call();
    expect(during.status).toBe(200);
    expect(during.body.output).toEqual({ message: 'Hello, Ada! (v2)' });

    // The fix: the next build serves again.
    mark = dev.lines.length;
    writeFileSync(toolFile, generated.replace(WORK, WORK.replace('"!"', '"! (v3)"')));
    await dev.waitFor((line) => line.event === 'reindexed', 'reindexed after the fix', mark, 240_000);
    expect((await call()).body.output).toEqual({ message: 'Hello, Ada! (v3)' });

    // SIGINT to the whole group (a terminal's Ctrl-C): exit 0, dev.json gone, no JVM or Maven left.
    const pgid = dev.child.pid as number;
    process.kill(-pgid, 'SIGINT');
    expect(await dev.exited).toBe(0);
    expect(existsSync(join(packDir, '.kindgi', 'dev.json'))).toBe(false);
    expect(await groupGone(pgid)).toBe(true);
    expect(processesMentioning(packDir)).toEqual([]);
    expect(dev.lines.at(-1)?.event).toBe('stopped');
  }, 600_000);
});
