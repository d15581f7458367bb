import { readFileSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, it } from 'vitest';
import {
  cleanupTempDirs,
  EXAMPLE_PACK_DIR,
  isAlive,
  makeTempDir,
  REPO_ROOT,
  type ServerProcess,
  spawnServer,
  startServer,
  stderrOf,
  stopAllServers,
  terminate,
  writeConfig,
} from './harness.js';

/** Runs the server on a config file with this text and waits for its exit. */
async function runWithConfig(text: string, env: Record<string, string> = {}) {
  const dir = makeTempDir('config');
  const path = join(dir, 'kindgi.server.json');
  writeFileSync(path, text);
  const server = spawnServer(['--config', path], { env });
  const exit = await server.exited;
  return { exit, server, path };
}

/** The problems of the server's `config-invalid` error record; throws with its whole stderr when there is none. */
function problemsOf(server: ServerProcess): string[] {
  const record = server.records.find((entry) => entry.event === 'config-invalid');
  if (record?.level !== 'error' || !Array.isArray(record.problems)) {
    throw new Error(`no config-invalid error record; stderr was:\n${stderrOf(server)}`);
  }
  return record.problems as string[];
}

const validBase = { port: 0, packs: [{ dir: EXAMPLE_PACK_DIR }] };

describe.concurrent('config validation and the command line', () => {
  afterAll(async () => {
    await stopAllServers();
    cleanupTempDirs();
  });

  it('refuses a config with an unknown field, a bad port and a bad token, naming every problem', async ({ expect }) => {
    const config = {
      ...validBase,
      dataDir: '/nonexistent-should-not-be-created',
      port: 70_000,
      colour: 'blue',
      tokens: [{ token: 'short', tenantId: 't1' }],
    };
    const { exit, server, path } = await runWithConfig(JSON.stringify(config));
    expect(exit, stderrOf(server)).toEqual({ code: 1, signal: null });
    const problems = problemsOf(server);
    expect(problems.length).toBeGreaterThanOrEqual(3);
    expect(problems.some((problem) => problem.includes('colour'))).toBe(true);
    expect(problems.some((problem) => problem.includes('port'))).toBe(true);
    expect(problems.some((problem) => problem.includes('tokens.0.token'))).toBe(true);
    for (const problem of problems) expect(problem).toContain(path);
    // It stopped before doing anything: no listener, no pack service.
    expect(server.records.some((record) => record.event === 'listening')).toBe(false);
    expect(server.spawnedPackPids.size).toBe(0);
  });

  it('refuses a port out of range', async ({ expect }) => {
    const { exit, server } = await runWithConfig(JSON.stringify({ ...validBase, port: -1 }));
    expect(exit.code, stderrOf(server)).toBe(1);
    expect(problemsOf(server)).toEqual([expect.stringMatching(/port/)]);
  });

  it('refuses a file that is not JSON, saying where', async ({ expect }) => {
    const { exit, server, path } = await runWithConfig('{ "port": 0, ');
    expect(exit.code, stderrOf(server)).toBe(1);
    const problems = problemsOf(server);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(path);
    expect(problems[0]).toMatch(/JSON/);
  });

  it('reports a bad environment override together with the file', async ({ expect }) => {
    const { exit, server } = await runWithConfig(JSON.stringify(validBase), { KINDGI_SERVER_PORT: 'eighty' });
    expect(exit.code, stderrOf(server)).toBe(1);
    expect(problemsOf(server)).toEqual([expect.stringContaining('KINDGI_SERVER_PORT')]);
  });

  it("a KINDGI_SERVER_S3_* variable merges into the file's s3 block, keeping its other fields", async ({ expect }) => {
    const dir = makeTempDir('config-merge');
    const path = writeConfig(dir, join(dir, 'data'), { s3: { port: 0 } });
    const server = await startServer(path, { env: { KINDGI_SERVER_S3_REGIONS: 'eu-west-1' } });
    // The file's s3.port survived the variable: the S3 surface listens on its own port.
    expect(server.listening.s3Url, stderrOf(server)).toEqual(expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+/));
    expect((await terminate(server)).code).toBe(0);
  });

  it('refuses a short KINDGI_SERVER_CURSOR_SECRET without quoting it', async ({ expect }) => {
    const secret = 'short-cursor-secret-7e1';
    const { exit, server } = await runWithConfig(JSON.stringify(validBase), { KINDGI_SERVER_CURSOR_SECRET: secret });
    expect(exit.code, stderrOf(server)).toBe(1);
    expect(problemsOf(server)).toEqual([expect.stringContaining('cursorSecret')]);
    expect(stderrOf(server)).not.toContain(secret);
  });

  it('refuses a config file that does not exist', async ({ expect }) => {
    const dir = makeTempDir('config-missing');
    const server = spawnServer(['--config', join(dir, 'nope.json')]);
    expect((await server.exited).code, stderrOf(server)).toBe(1);
    expect(problemsOf(server)[0]).toContain('nope.json');
  });

  it('exits 1 with boot-failed when the port is taken, leaving no pack service behind', async ({ expect }) => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = blocker.address() as AddressInfo;
      const dir = makeTempDir('config-port');
      const config = { ...validBase, port, dataDir: join(dir, 'data') };
      const { exit, server } = await runWithConfig(JSON.stringify(config));
      expect(exit, stderrOf(server)).toEqual({ code: 1, signal: null });
      const failed = server.records.find((record) => record.event === 'boot-failed');
      expect(failed?.problems).toEqual([expect.stringContaining('EADDRINUSE')]);
      expect(server.spawnedPackPids.size).toBe(1);
      for (const pid of server.spawnedPackPids) expect(isAlive(pid)).toBe(false);
      expect(server.packPids.size).toBe(0);
    } finally {
      blocker.close();
    }
  });

  it('exits 1 with boot-failed naming a pack dir that holds no pack', async ({ expect }) => {
    const dir = makeTempDir('config-pack');
    const config = { ...validBase, dataDir: join(dir, 'data'), packs: [{ dir: join(dir, 'no-such-pack') }] };
    const { exit, server } = await runWithConfig(JSON.stringify(config));
    expect(exit, stderrOf(server)).toEqual({ code: 1, signal: null });
    const failed = server.records.find((record) => record.event === 'boot-failed');
    expect(failed?.problems).toEqual([expect.stringContaining(join(dir, 'no-such-pack'))]);
  });

  it('--help and -h print the usage and exit 0; --version prints the version', async ({ expect }) => {
    for (const flag of ['--help', '-h']) {
      const server = spawnServer([flag]);
      expect(await server.exited).toEqual({ code: 0, signal: null });
      expect(server.stdout()).toMatch(/^Usage: kindgi-server \[--config kindgi\.server\.json\]/);
      expect(server.stdout()).toContain('KINDGI_SERVER_PORT');
    }
    const version = spawnServer(['--version']);
    expect(await version.exited).toEqual({ code: 0, signal: null });
    const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'packages/server/package.json'), 'utf8'));
    expect(version.stdout()).toBe(`${manifest.version}\n`);
  });

  it('resolves --config against the working directory', async ({ expect }) => {
    const dir = makeTempDir('config-cwd');
    writeFileSync(join(dir, 'bad.json'), '{"port": "not a port"}');
    const server = spawnServer(['--config', 'bad.json'], { cwd: dir });
    expect(await server.exited).toEqual({ code: 1, signal: null });
    const invalid = server.records.find((record) => record.event === 'config-invalid');
    expect(invalid?.problems).toEqual([expect.stringContaining(join(dir, 'bad.json'))]);
  });

  it('an unknown flag exits 2 with the usage on stderr', async ({ expect }) => {
    const server = spawnServer(['--colour', 'blue']);
    expect(await server.exited).toEqual({ code: 2, signal: null });
    const stderr = server.rawStderr.join('\n');
    expect(stderr).toContain('--colour');
    expect(stderr).toContain('Usage: kindgi-server');
    expect(server.stdout()).toBe('');
  });
});
