import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  cleanupTempDirs,
  EXAMPLE_PACK_DIR,
  type LogRecord,
  makeTempDir,
  spawnServer,
  stopAllServers,
} from './harness.js';

/** Runs the server on a config file with this text and returns its exit and its `config-invalid` record. */
async function runWithConfig(text: string, env: Record<string, string> = {}) {
  const dir = makeTempDir('config');
  const path = join(dir, 'kindgi.server.json');
  writeFileSync(path, text);
  const server = spawnServer(['--config', path], { env });
  const exit = await server.exited;
  const invalid = server.records.find((record) => record.event === 'config-invalid');
  return { exit, invalid, server, path };
}

function problemsOf(record: LogRecord | undefined): string[] {
  expect(record).toBeDefined();
  expect(record?.level).toBe('error');
  return record?.problems as string[];
}

const validBase = { port: 0, packs: [{ dir: EXAMPLE_PACK_DIR }] };

describe('config validation and the command line', () => {
  afterAll(async () => {
    await stopAllServers();
    cleanupTempDirs();
  });

  it('refuses a config with an unknown field, a bad port and a bad token, naming every problem', async () => {
    const config = {
      ...validBase,
      dataDir: '/nonexistent-should-not-be-created',
      port: 70_000,
      colour: 'blue',
      tokens: [{ token: 'short', tenantId: 't1' }],
    };
    const { exit, invalid, server, path } = await runWithConfig(JSON.stringify(config));
    expect(exit).toEqual({ code: 1, signal: null });
    const problems = problemsOf(invalid);
    expect(problems.length).toBeGreaterThanOrEqual(3);
    expect(problems.some((problem) => problem.includes('colour'))).toBe(true);
    expect(problems.some((problem) => problem.includes('port'))).toBe(true);
    expect(problems.some((problem) => problem.includes('tokens.0.token'))).toBe(true);
    for (const problem of problems) expect(problem).toContain(path);
    // It stopped before doing anything: no listener, no pack service.
    expect(server.records.some((record) => record.event === 'listening')).toBe(false);
    expect(server.packPids.size).toBe(0);
  });

  it('refuses a port out of range', async () => {
    const { exit, invalid } = await runWithConfig(JSON.stringify({ ...validBase, port: -1 }));
    expect(exit.code).toBe(1);
    expect(problemsOf(invalid)).toEqual([expect.stringMatching(/port/)]);
  });

  it('refuses a file that is not JSON, saying where', async () => {
    const { exit, invalid, path } = await runWithConfig('{ "port": 0, ');
    expect(exit.code).toBe(1);
    const problems = problemsOf(invalid);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(path);
    expect(problems[0]).toMatch(/JSON/);
  });

  it('reports a bad environment override together with the file', async () => {
    const { exit, invalid } = await runWithConfig(JSON.stringify(validBase), { KINDGI_SERVER_PORT: 'eighty' });
    expect(exit.code).toBe(1);
    expect(problemsOf(invalid)).toEqual([expect.stringContaining('KINDGI_SERVER_PORT')]);
  });

  it('refuses a config file that does not exist', async () => {
    const dir = makeTempDir('config-missing');
    const server = spawnServer(['--config', join(dir, 'nope.json')]);
    expect((await server.exited).code).toBe(1);
    expect(problemsOf(server.records.find((record) => record.event === 'config-invalid'))[0]).toContain('nope.json');
  });

  it('--help prints the usage and exits 0', async () => {
    const server = spawnServer(['--help']);
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(server.stdout()).toMatch(/^Usage: kindgi-server \[--config kindgi\.server\.json\]/);
    expect(server.stdout()).toContain('KINDGI_SERVER_PORT');
  });

  it('an unknown flag exits 2 with the usage on stderr', async () => {
    const server = spawnServer(['--colour', 'blue']);
    expect(await server.exited).toEqual({ code: 2, signal: null });
    const stderr = server.rawStderr.join('\n');
    expect(stderr).toContain('--colour');
    expect(stderr).toContain('Usage: kindgi-server');
    expect(server.stdout()).toBe('');
  });
});
