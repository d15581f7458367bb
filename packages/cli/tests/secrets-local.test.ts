import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { kindgi, removeTemps, runProgram, tempDir } from './helpers.js';

afterAll(removeTemps);

describe('kindgi secrets --env local', () => {
  it('reads the value from stdin into a new .env.local (mode 0600), dropping the trailing newline', async () => {
    const pack = tempDir('secrets-new');
    const run = await kindgi(['secrets', 'set', 'CITATOR_KEY', '--env', 'local', '--scope', 'tenant'], {
      cwd: pack,
      input: 'citator-demo-key-0123456789\n',
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toContain('citator-demo-key');
    const file = join(pack, '.env.local');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(parseEnv(readFileSync(file, 'utf8'))).toEqual({ CITATOR_KEY: 'citator-demo-key-0123456789' });
  });

  it('replaces the value in place and keeps every other line; quotes a value that needs it', async () => {
    const pack = tempDir('secrets-update');
    const file = join(pack, '.env.local');
    writeFileSync(file, '# mine\nFIRST=1\nCITATOR_KEY=old\nLAST="two words"\n', { mode: 0o640 });
    const value = `it's "tricky" # not a comment`;
    const run = await kindgi(['secrets', 'set', 'CITATOR_KEY'], { cwd: pack, input: value });
    expect(run.code, run.stderr).toBe(0);
    const text = readFileSync(file, 'utf8');
    expect(text.split('\n')[0]).toBe('# mine');
    expect(parseEnv(text)).toEqual({ FIRST: '1', CITATOR_KEY: value, LAST: 'two words' });
    expect(statSync(file).mode & 0o777).toBe(0o640);
  });

  it('refuses a value on the command line, a bad name, an empty value; exit 2, 2, 1; nothing written', async () => {
    const pack = tempDir('secrets-refuse');
    const positional = await kindgi(['secrets', 'set', 'CITATOR_KEY', 'hunter2'], { cwd: pack, input: 'x' });
    expect(positional.code).toBe(2);
    expect(positional.stderr).toContain('never taken from the command line');
    const flag = await kindgi(['secrets', 'set', 'CITATOR_KEY', '--value=hunter2'], { cwd: pack, input: 'x' });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('shell history');
    const badName = await kindgi(['secrets', 'set', 'citator-key'], { cwd: pack, input: 'x' });
    expect(badName.code).toBe(2);
    const empty = await kindgi(['secrets', 'set', 'CITATOR_KEY'], { cwd: pack, input: '\n' });
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain('empty');
    const tooBig = await kindgi(['secrets', 'set', 'CITATOR_KEY'], { cwd: pack, input: 'x'.repeat(17 * 1024) });
    expect(tooBig.code).toBe(1);
    expect(() => statSync(join(pack, '.env.local'))).toThrow();
  });

  it('lists the names in .env and .env.local, never values', async () => {
    const pack = tempDir('secrets-list');
    writeFileSync(join(pack, '.env'), 'A_URL=https://a.test\nSHARED=1\n');
    writeFileSync(join(pack, '.env.local'), 'SHARED=2\nB_KEY=secret-value\n');
    const run = await kindgi(['secrets', 'list'], { cwd: pack });
    expect(run).toMatchObject({ code: 0, stdout: 'A_URL\nB_KEY\nSHARED\n' });
    const json = await kindgi(['secrets', 'list', '--json'], { cwd: pack });
    expect(JSON.parse(json.stdout)).toEqual({ env: 'local', names: ['A_URL', 'B_KEY', 'SHARED'] });
  });

  it('prompts without echo on a terminal: Enter ends the value, Ctrl-C aborts with exit 1', async () => {
    const pack = tempDir('secrets-tty');
    // A pseudo-terminal from Python's pty module: the child sees a TTY on stdin.
    const script = `
import os, pty, sys
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
out = b''
def read_until(marker):
    global out
    while marker not in out:
        out += os.read(fd, 1024)
read_until(b'not shown')
os.write(fd, sys.stdin.buffer.read())
try:
    while True:
        chunk = os.read(fd, 1024)
        if not chunk: break
        out += chunk
except OSError:
    pass
_, status = os.waitpid(pid, 0)
sys.stdout.buffer.write(out)
sys.exit(os.waitstatus_to_exitcode(status))
`;
    const cli = [process.execPath, join(import.meta.dirname, '../dist/main.js'), 'secrets', 'set', 'TYPED_KEY'];
    const typed = await runProgram('python3', ['-c', script, ...cli], { cwd: pack, input: 'typed-secret\r' });
    expect(typed.code, typed.stdout).toBe(0);
    expect(typed.stdout).not.toContain('typed-secret');
    expect(parseEnv(readFileSync(join(pack, '.env.local'), 'utf8'))).toEqual({ TYPED_KEY: 'typed-secret' });
    const aborted = await runProgram('python3', ['-c', script, ...cli], { cwd: pack, input: 'half\u0003' });
    expect(aborted.code).toBe(1);
    expect(aborted.stdout).toContain('aborted');
    expect(parseEnv(readFileSync(join(pack, '.env.local'), 'utf8'))).toEqual({ TYPED_KEY: 'typed-secret' });
  });
});
