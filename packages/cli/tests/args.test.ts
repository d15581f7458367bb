import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { kindgi, removeTemps, tempDir } from './helpers.js';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string;
};
const COMMANDS = ['init', 'call', 'index', 'secrets'];

afterAll(removeTemps);

describe('every command’s argument front', () => {
  it.each(COMMANDS)('%s --help prints its usage on stdout, exit 0', async (command) => {
    const run = await kindgi([command, '--help'], { cwd: tempDir('help') });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Usage: kindgi ${command}`);
    expect(run.stderr).toBe('');
  });

  it.each(COMMANDS)('%s --version prints the CLI version', async (command) => {
    const run = await kindgi([command, '--version'], { cwd: tempDir('version') });
    expect(run).toMatchObject({ code: 0, stdout: `${version}\n` });
  });

  it.each(COMMANDS)('%s refuses an unknown flag: exit 2, the usage on stderr, nothing on stdout', async (command) => {
    const run = await kindgi([command, '--no-such-flag'], { cwd: tempDir('bad') });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain("Unknown option '--no-such-flag'");
    expect(run.stderr).toContain(`Usage: kindgi ${command}`);
  });

  it('kindgi --version and an unknown command', async () => {
    const cwd = tempDir('top');
    expect(await kindgi(['--version'], { cwd })).toMatchObject({ code: 0, stdout: `${version}\n` });
    const unknown = await kindgi(['frobnicate'], { cwd });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "frobnicate"');
  });
});
