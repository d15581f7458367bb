import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  cleanup,
  groupGone,
  invoke,
  invokeUntil,
  makeTempDir,
  REPO_ROOT,
  readDevFile,
  startDev,
} from './dev-harness.js';
import { kindgi } from './helpers.js';

// `kindgi dev` serves a Python pack through the server (python-pack.ts): `python3` on PATH is the
// interpreter, so the CI virtualenv's bin/ goes first, as an activated virtualenv puts it.
const venvBin = join(process.env.KINDGI_TEST_VENV ?? join(REPO_ROOT, '.ci/venv'), 'bin');
const hasVenv = existsSync(join(venvBin, 'python3'));
if (!hasVenv) console.warn(`dev-python.test.ts: skipped, ${venvBin}/python3 is missing`);

const PACK_ID = 'acme-legal';
const TOOL_ID = `${PACK_ID}.greet`;
const WORK = 'return GreetOutput(message=f"{value.greeting}, {value.name}!")';

describe.skipIf(!hasVenv)('kindgi dev on a Python pack', () => {
  afterAll(cleanup);

  it('serves the generated pack, reindexes on save, keeps the last good code on an error, stops on SIGINT', async () => {
    const cwd = makeTempDir('dev-python');
    const init = await kindgi(['init', PACK_ID, '--language', 'python'], { cwd });
    expect(init.code, init.stderr).toBe(0);
    const packDir = join(cwd, PACK_ID);
    const toolFile = join(packDir, 'tools', 'greet.py');
    const generated = readFileSync(toolFile, 'utf8');
    expect(generated).toContain(WORK);

    const dev = startDev(packDir, { ...process.env, PATH: `${venvBin}:${process.env.PATH ?? ''}` });
    await dev.waitFor((line) => line.event === 'serving', 'serving', 0, 120_000);
    const file = readDevFile(packDir);
    const call = () => invoke(file.url, file.token, TOOL_ID, { name: 'Ada' });
    const first = await call();
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.output).toEqual({ message: 'Hello, Ada!' });

    // A save: the pack is reindexed and the next calls run the new code.
    let mark = dev.lines.length;
    writeFileSync(toolFile, generated.replace(WORK, WORK.replace('!")', '! (v2)")')));
    await dev.waitFor((line) => line.event === 'reindexed', 'reindexed', mark, 60_000);
    const second = await invokeUntil(call, (answer) => answer.body.output !== undefined);
    expect(second.body.output).toEqual({ message: 'Hello, Ada! (v2)' });

    // A file that fails to import: reported, and the last good code keeps serving.
    mark = dev.lines.length;
    writeFileSync(toolFile, generated.replace(WORK, 'return undefined_name +'));
    await dev.waitFor((line) => line.event === 'reindex-failed', 'reindex-failed', mark, 60_000);
    expect((await call()).body.output).toEqual({ message: 'Hello, Ada! (v2)' });

    const pgid = dev.child.pid as number;
    process.kill(pgid, 'SIGINT');
    expect(await dev.exited).toBe(0);
    expect(await groupGone(pgid)).toBe(true);
  }, 180_000);
});
