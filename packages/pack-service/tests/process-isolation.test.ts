import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { basicIndexPath, call, invokeBody, TOKEN } from './pack-helpers.js';
import { killAll, listeningUrl, mainJs, type ServiceProcess, spawnService } from './process-helpers.js';

const base = { PORT: '0', FIXTURE_REQUIRED: 'set', KINDGI_LOG_FORMAT: 'json' };
const args = ['--index', basicIndexPath, '--host', '127.0.0.1'];
const linux = existsSync('/proc/self/environ');
let tmp: string;

beforeAll(() => {
  if (!existsSync(mainJs)) throw new Error('Build first: pnpm --filter @kindgi/pack-service build');
  tmp = mkdtempSync(join(tmpdir(), 'kindgi-isolation-test-'));
});
afterEach(killAll);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

type Environ = { names: string[]; envNames: string[]; pid: number };

async function environ(svc: ServiceProcess): Promise<Environ> {
  const url = await listeningUrl(svc);
  const reply = await call(url, '/v1/invoke', { body: invokeBody('fixture.proc-environ') });
  return reply.json.output as Environ;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe.runIf(linux)('pack-service process: pack code sees only the filtered environment', () => {
  it('keeps the token and undeclared variables out of /proc/self/environ and process.env', async () => {
    const secret = 'undeclared-secret-value';
    const svc = spawnService(args, {
      ...base,
      KINDGI_PACK_SERVICE_TOKEN: TOKEN,
      AWS_SECRET_ACCESS_KEY: secret,
      FIXTURE_OPTIONAL: 'opt',
      LC_ALL: 'C',
    });
    const seen = await environ(svc);
    for (const names of [seen.names, seen.envNames]) {
      expect(names).not.toContain('KINDGI_PACK_SERVICE_TOKEN');
      expect(names).not.toContain('AWS_SECRET_ACCESS_KEY');
      expect(names).toEqual(expect.arrayContaining(['FIXTURE_OPTIONAL', 'FIXTURE_REQUIRED', 'LC_ALL', 'PATH']));
    }
    // Pack code runs in a child of the process the platform started.
    expect(seen.pid).not.toBe(svc.child.pid);
    expect(svc.records().find((r) => r.event === 'env-dropped')?.names).toEqual(['AWS_SECRET_ACCESS_KEY']);
    expect(svc.records().filter((r) => r.event === 'listening')).toHaveLength(1);
    expect(svc.stderr.join('\n')).not.toContain(secret);
  });

  it('with KINDGI_PACK_ENV_FILTER=off keeps undeclared variables but still not the token', async () => {
    const svc = spawnService(args, {
      ...base,
      KINDGI_PACK_SERVICE_TOKEN: TOKEN,
      KINDGI_PACK_ENV_FILTER: 'off',
      UNDECLARED: 'kept',
    });
    const seen = await environ(svc);
    expect(seen.names).toContain('UNDECLARED');
    expect(seen.names).not.toContain('KINDGI_PACK_SERVICE_TOKEN');
  });

  it('serves in the process itself when the token comes on --token-fd and nothing must be dropped', async () => {
    const svc = spawnService([...args, '--token-fd', '3'], base, { tokenOnFd3: `${TOKEN}\n` });
    const seen = await environ(svc);
    expect(seen.pid).toBe(svc.child.pid);
    expect(seen.names).not.toContain('KINDGI_PACK_SERVICE_TOKEN');
    const url = await listeningUrl(svc);
    const refused = await call(url, '/v1/info', { headers: { 'kindgi-pack-token': 'wrong' } });
    expect(refused.status).toBe(401);
  });

  it('refuses a --token-fd that cannot be read, with config-invalid', async () => {
    const svc = spawnService([...args, '--token-fd', '99'], base);
    expect(await svc.exited).toBe(1);
    const invalid = svc.records().find((r) => r.event === 'config-invalid');
    expect(String(invalid?.problems)).toMatch(/^Cannot read the token from file descriptor 99: EBADF/);
  });

  it('relays SIGTERM to the isolated child: it drains the call in flight and the process exits 0', async () => {
    const svc = spawnService(args, { ...base, KINDGI_PACK_SERVICE_TOKEN: TOKEN, UNDECLARED: 'x' });
    const url = await listeningUrl(svc);
    const release = join(tmp, 'release-sigterm');
    const held = call(url, '/v1/invoke', { body: invokeBody('fixture.hold', { path: release }) });
    await svc.waitForLine((line) => line === `hold: ${release}`);
    svc.child.kill('SIGTERM');
    await svc.waitForRecord((r) => r.event === 'draining');
    writeFileSync(release, '');
    expect((await held).json).toEqual({ v: 2, kind: 'result', output: { held: release } });
    expect(await svc.exited).toBe(0);
  });

  it('the isolated child drains and exits when the process that started it is SIGKILLed', async () => {
    const svc = spawnService(args, { ...base, KINDGI_PACK_SERVICE_TOKEN: TOKEN, UNDECLARED: 'x' }, { stdinPipe: true });
    const { pid } = await environ(svc);
    expect(pid).not.toBe(svc.child.pid);
    svc.child.kill('SIGKILL');
    await svc.exited;
    // The child's stdin is a pipe from its parent: it closes now, and the child drains and exits.
    while (alive(pid)) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(alive(pid)).toBe(false);
  });

  it('passes the isolated child exit code on: 1 when it cannot boot', async () => {
    const indexPath = join(tmp, 'missing-module.json');
    writeFileSync(
      indexPath,
      JSON.stringify({
        v: 1,
        packId: 'p',
        packVersion: '1',
        artifactVersion: 'a',
        tools: [{ id: 'p.gone', input: {}, output: {}, modulePath: 'gone.mjs' }],
        guardrails: [],
      }),
    );
    const svc = spawnService(['--index', indexPath], { ...base, KINDGI_PACK_SERVICE_TOKEN: TOKEN, UNDECLARED: 'x' });
    expect(await svc.exited).toBe(1);
    expect(svc.records().find((r) => r.event === 'boot-failed')?.problems).toEqual([
      `Missing module: ${join(tmp, 'gone.mjs')}`,
    ]);
  });
});

describe('pack-service process: command line', () => {
  it('answers --help and -h on stdout with exit 0, and --version', async () => {
    for (const flag of ['--help', '-h']) {
      const svc = spawnService([flag], {});
      expect(await svc.exited).toBe(0);
      expect(svc.stdout[0]).toMatch(/^Usage: pack-service /);
      expect(svc.stdout.join('\n')).toContain('--token-fd <n>');
      expect(svc.stderr).toEqual([]);
    }
    const version = spawnService(['--version'], {});
    expect(await version.exited).toBe(0);
    expect(version.stdout).toEqual(['0.1.0']);
  });

  it('exits 2 with the usage on stderr for an unknown flag', async () => {
    const svc = spawnService(['--index', basicIndexPath, '--verbose'], { ...base, KINDGI_PACK_SERVICE_TOKEN: TOKEN });
    expect(await svc.exited).toBe(2);
    expect(svc.stderr[0]).toBe('pack-service: Unknown argument "--verbose"');
    expect(svc.stderr.join('\n')).toContain('Usage: pack-service ');
    expect(svc.stdout).toEqual([]);
  });

  it('caps results with KINDGI_PACK_SERVICE_MAX_OUTPUT_BYTES', async () => {
    const svc = spawnService(args, {
      ...base,
      KINDGI_PACK_SERVICE_TOKEN: TOKEN,
      KINDGI_PACK_SERVICE_MAX_OUTPUT_BYTES: '512',
    });
    const url = await listeningUrl(svc);
    const reply = await call(url, '/v1/invoke', { body: invokeBody('fixture.echo', { message: 'm'.repeat(600) }) });
    expect(reply.json).toMatchObject({ kind: 'error', code: 'output-too-large' });
    const gone = once(svc.child, 'exit');
    svc.child.kill('SIGTERM');
    await gone;
  });
});
