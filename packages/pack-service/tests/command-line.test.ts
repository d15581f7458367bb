import { describe, expect, it } from 'vitest';
import { readPackServiceArgv } from '../src/process/argv.js';
import { readCommandLine } from '../src/process/cli.js';

describe('the pack service command line (node:util parseArgs)', () => {
  it('answers the first of --help, --version or an unknown argument', () => {
    expect(readCommandLine([])).toEqual({ kind: 'serve' });
    expect(readCommandLine(['--index', 'i.json', '-h'])).toEqual({ kind: 'help' });
    expect(readCommandLine(['--version', '--help'])).toEqual({ kind: 'version' });
    expect(readCommandLine(['--verbose', '--help'])).toEqual({
      kind: 'usage-error',
      message: 'Unknown argument "--verbose"',
    });
    for (const arg of ['-hx', '--help=1', 'serve', '--']) {
      expect(readCommandLine([arg])).toEqual({
        kind: 'usage-error',
        message: `Unknown argument ${JSON.stringify(arg)}`,
      });
    }
  });

  it('takes a value after the flag or after `=`, the last one winning', () => {
    expect(readPackServiceArgv(['--index', 'a.json', '--host=127.0.0.1', '--index=b.json', '--token-fd', '3'])).toEqual(
      {
        first: undefined,
        values: { index: 'b.json', host: '127.0.0.1', 'token-fd': '3' },
        problems: [],
      },
    );
    // Any next argument is a value, but another value flag.
    expect(readPackServiceArgv(['--index', '--help']).values).toEqual({ index: '--help' });
  });

  it('names a flag left without a value, and still reads the flag that follows it', () => {
    expect(readPackServiceArgv(['--index', '--host', '0.0.0.0', '--bundle-map'])).toEqual({
      first: undefined,
      values: { host: '0.0.0.0' },
      problems: ['--index needs a path', '--bundle-map needs a path'],
    });
    expect(readPackServiceArgv(['--module-root=', '--token-fd', ' ']).problems).toEqual([
      '--module-root needs a directory',
      '--token-fd needs a file descriptor number',
    ]);
  });
});
