import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { fixture } from './helpers.js';

const packageDir = dirname(dirname(fileURLToPath(import.meta.url)));

describe('native import of awkward module paths (child process)', () => {
  it('imports paths with spaces and #, and file: URLs, for tools and checks', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--conditions=source', '--import', 'jiti/register', join(packageDir, 'tests/native/import-paths.ts')],
      { cwd: packageDir },
    );
    const outcomes = JSON.parse(stdout);
    expect(outcomes.path).toEqual({ kind: 'ok', value: { shape: 'spaced', input: { via: 'path' } } });
    expect(outcomes.url).toEqual({ kind: 'ok', value: { shape: 'spaced', input: { via: 'url' } } });
    expect(outcomes.check).toEqual({ kind: 'ok', value: { passed: true, reason: 'spaced native' } });
    expect(outcomes.missing.error.code).toBe('handler-import-failed');
    expect(outcomes.missing.error.message).toContain(
      `Failed to import handler module '${fixture('dir with space #1/missing #3.mjs')}': Error`,
    );
  });
});
