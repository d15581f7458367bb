import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kindgi, removeTemps, tempDir } from './helpers.js';
import { startTestServer, type TestServer, writeDevSession } from './server-harness.js';

let server: TestServer;
let packDir: string;

beforeAll(async () => {
  server = await startTestServer(tempDir('call-server'));
  packDir = tempDir('call-pack');
  writeDevSession(packDir, server);
}, 120_000);

afterAll(async () => {
  await server?.stop();
  removeTemps();
});

describe('kindgi call', () => {
  it('calls a tool on the kindgi dev of --pack-dir with --input, and prints the output as JSON', async () => {
    const run = await kindgi(
      ['call', 'acme.format-citation', '--pack-dir', packDir, '--input', '{"source":"Refund policy","page":3}'],
      { cwd: tempDir('call-cwd') },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ citation: '[Refund policy, p. 3]' });
  });

  it('builds the input from --arg (JSON values when they parse) and prints the whole reply with --json', async () => {
    const args = [
      'call',
      'acme.format-citation',
      '--arg',
      'source=Billing FAQ',
      '--arg',
      'page=2',
      '--arg',
      'style=long',
    ];
    const run = await kindgi([...args, '--json'], { cwd: packDir });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ output: { citation: '[Billing FAQ, page 2]' } });
  });

  it('calls a server given with --server, the token from KINDGI_TOKEN', async () => {
    const env = { ...process.env, KINDGI_TOKEN: server.token };
    const run = await kindgi(['call', 'acme.format-citation', '--server', server.url, '--arg', 'source=X'], {
      cwd: tempDir('call-server-flag'),
      env,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ citation: '[X]' });
    const noToken = await kindgi(['call', 'acme.format-citation', '--server', server.url], {
      cwd: packDir,
      env: { ...process.env, KINDGI_TOKEN: '' },
    });
    expect(noToken.code).toBe(1);
    expect(noToken.stderr).toContain('KINDGI_TOKEN');
  });

  it("prints the API's error code and message on stderr, exit 1", async () => {
    const unknown = await kindgi(['call', 'acme.no-such-tool', '--input', '{}'], { cwd: packDir });
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toMatch(/kindgi call: tool-not-found: /);
    const invalid = await kindgi(['call', 'acme.format-citation', '--input', '{"page":0}', '--json'], { cwd: packDir });
    expect(invalid.code).toBe(1);
    const error = JSON.parse(invalid.stdout).error;
    expect(error.code).toBe('input-validation-failed');
  });

  it('says clearly when no kindgi dev runs, and refuses bad input with exit 2', async () => {
    const lonely = tempDir('call-lonely');
    const none = await kindgi(['call', 'acme.format-citation', '--input', '{}'], { cwd: lonely });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('no kindgi dev is running');
    writeDevSession(lonely, server, 2 ** 22 + 12_345);
    const stale = await kindgi(['call', 'acme.format-citation'], { cwd: lonely });
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('no longer running');
    for (const args of [['--input', '{nope'], ['--input', '{}', '--arg', 'a=1'], ['--arg', 'novalue'], []]) {
      const bad = await kindgi(['call', ...(args.length === 0 ? [] : ['acme.format-citation']), ...args], {
        cwd: join(packDir),
      });
      expect(bad.code, args.join(' ')).toBe(2);
    }
  });
});
