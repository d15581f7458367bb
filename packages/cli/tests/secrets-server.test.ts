import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kindgi, removeTemps, tempDir } from './helpers.js';
import { startTestServer, type TestServer, writeDevSession } from './server-harness.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer(tempDir('secrets-server'));
}, 120_000);

afterAll(async () => {
  await server?.stop();
  removeTemps();
});

describe('kindgi secrets --env <server env>', () => {
  it('PUTs the value from stdin to --server (token from KINDGI_TOKEN) and lists names only', async () => {
    const cwd = tempDir('secrets-server-cwd');
    const env = { ...process.env, KINDGI_TOKEN: server.token };
    const args = ['--env', 'staging', '--server', server.url];
    const set = await kindgi(['secrets', 'set', 'CITATOR_KEY', ...args, '--json'], {
      cwd,
      env,
      input: 'citator-demo-key-0123456789\n',
    });
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({ name: 'CITATOR_KEY', env: 'staging', version: 1 });
    const again = await kindgi(['secrets', 'set', 'CITATOR_KEY', ...args], { cwd, env, input: 'second-value' });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('version 2');
    const list = await kindgi(['secrets', 'list', ...args], { cwd, env });
    expect(list).toMatchObject({ code: 0, stdout: 'CITATOR_KEY\n' });
    expect(list.stdout).not.toContain('second-value');
  });

  it('goes to the running kindgi dev without --server; a server error is its code on stderr, exit 1', async () => {
    const pack = tempDir('secrets-server-dev');
    writeDevSession(pack, server);
    const set = await kindgi(['secrets', 'set', 'OTHER_KEY', '--env', 'prod'], { cwd: pack, input: 'v' });
    expect(set.code, set.stderr).toBe(0);
    // Without --server the dev session's token is used, whatever KINDGI_TOKEN says.
    const devToken = await kindgi(['secrets', 'set', 'OTHER_KEY', '--env', 'prod'], {
      cwd: pack,
      env: { ...process.env, KINDGI_TOKEN: 'wrong' },
      input: 'v',
    });
    expect(devToken.code).toBe(0);
    const wrongToken = await kindgi(['secrets', 'list', '--env', 'prod', '--server', server.url], {
      cwd: pack,
      env: { ...process.env, KINDGI_TOKEN: 'not-a-real-token' },
    });
    expect(wrongToken.code).toBe(1);
    expect(wrongToken.stderr).toMatch(/kindgi secrets: auth-invalid: /);
  });
});
