import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { basicIndex, basicIndexPath, basicPackDir, call, invokeBody, TOKEN } from './pack-helpers.js';
import { killAll, listeningUrl, mainJs, spawnService } from './process-helpers.js';

const env = { KINDGI_PACK_SERVICE_TOKEN: TOKEN, PORT: '0', FIXTURE_REQUIRED: 'set', KINDGI_LOG_FORMAT: 'json' };
const args = ['--index', basicIndexPath, '--host', '127.0.0.1'];
let tmp: string;

beforeAll(() => {
  if (!existsSync(mainJs)) throw new Error('Build first: pnpm --filter @kindgi/pack-service build');
  tmp = mkdtempSync(join(tmpdir(), 'kindgi-pack-service-test-'));
});
afterEach(killAll);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function writeIndex(name: string, patch: (index: Record<string, unknown>) => void): string {
  const index = basicIndex() as unknown as Record<string, unknown>;
  patch(index);
  const path = join(tmp, name);
  writeFileSync(path, JSON.stringify(index));
  return path;
}

describe('pack-service process: failed starts', () => {
  it('exits 1 with one config-invalid record listing every problem', async () => {
    const svc = spawnService(['--host', ''], { PORT: 'http', KINDGI_PACK_ENV_CHECK: 'lax' });
    expect(await svc.exited).toBe(1);
    const records = svc.records();
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      level: 'error',
      subsystem: 'pack',
      event: 'config-invalid',
      kind: 'config-invalid',
      problems: [
        '--host needs an address',
        'PORT must be a port number, got "http"',
        'KINDGI_PACK_SERVICE_TOKEN is required',
        'KINDGI_PACK_ENV_CHECK must be `strict` or `warn`, not "lax"',
      ],
    });
  });

  it('exits 1 with boot-failed for an unreadable index or a wrong `v`', async () => {
    const missing = spawnService(['--index', join(tmp, 'nope.json')], env);
    expect(await missing.exited).toBe(1);
    const record = missing.records().find((r) => r.event === 'boot-failed');
    expect(record?.problems).toHaveLength(1);
    expect(String((record?.problems as string[] | undefined)?.[0])).toMatch(
      /^Cannot read the pack index: .*nope\.json: ENOENT/,
    );
    const v2 = spawnService(['--index', writeIndex('v2.json', (i) => Object.assign(i, { v: 2 }))], env);
    expect(await v2.exited).toBe(1);
    expect(v2.records().find((r) => r.event === 'boot-failed')?.problems).toEqual([
      `Cannot read the pack index: ${join(tmp, 'v2.json')}: expected \`v\` 1, got 2`,
    ]);
  });

  it('exits 1 listing every missing module, then every module that fails to import', async () => {
    const missingPath = writeIndex('missing.json', (index) => {
      const tools = index.tools as Record<string, unknown>[];
      tools.push({ id: 'fixture.gone', input: {}, output: {}, modulePath: 'tools/gone.mjs' });
      tools.push({ id: 'fixture.gone-too', input: {}, output: {}, modulePath: 'tools/gone-too.mjs' });
    });
    const missing = spawnService(['--index', missingPath, '--module-root', basicPackDir], env);
    expect(await missing.exited).toBe(1);
    expect(missing.records().find((r) => r.event === 'boot-failed')?.problems).toEqual([
      `Missing module: ${join(basicPackDir, 'tools/gone-too.mjs')}`,
      `Missing module: ${join(basicPackDir, 'tools/gone.mjs')}`,
    ]);
    const brokenPath = writeIndex('broken.json', (index) => {
      (index.tools as Record<string, unknown>[]).push({
        id: 'fixture.broken',
        input: {},
        output: {},
        modulePath: 'tools/broken.mjs',
      });
    });
    const broken = spawnService(['--index', brokenPath, '--module-root', basicPackDir], env);
    expect(await broken.exited).toBe(1);
    expect(broken.records().find((r) => r.event === 'boot-failed')?.problems).toEqual([
      'fixture.broken: broken at import',
    ]);
    expect(broken.records().some((r) => r.event === 'listening')).toBe(false);
  });
});

describe('pack-service process: serving', () => {
  it('listens on a free port with PORT=0 and keeps the token from pack code', async () => {
    const svc = spawnService(args, env);
    const url = await listeningUrl(svc);
    const listening = svc.records().find((r) => r.event === 'listening');
    expect(listening).toMatchObject({
      level: 'info',
      kind: 'listening',
      packId: 'fixture',
      artifactVersion: '20260101.1',
    });
    expect(listening?.message).toBe(`Listening on port ${listening?.port}`);
    expect((await call(url, '/healthz')).status).toBe(200);
    expect((await call(url, '/readyz')).status).toBe(200);
    const token = await call(url, '/v1/invoke', {
      body: invokeBody('fixture.env', { name: 'KINDGI_PACK_SERVICE_TOKEN' }),
    });
    expect(token.json).toEqual({ v: 2, kind: 'result', output: { value: null } });
  });

  it('drops undeclared env before pack code loads, logging names and never values', async () => {
    const secret = 'value-that-must-never-be-logged';
    const svc = spawnService(args, {
      ...env,
      UNDECLARED_SECRET: secret,
      FIXTURE_OPTIONAL: 'opt',
      OTEL_SERVICE_NAME: 'svc',
    });
    const url = await listeningUrl(svc);
    const dropped = svc.records().find((r) => r.event === 'env-dropped');
    expect(dropped).toMatchObject({ level: 'warn', kind: 'env-dropped', names: ['UNDECLARED_SECRET'] });
    expect(dropped?.message).toBe(
      "Dropped 1 variables the pack doesn't declare: UNDECLARED_SECRET (declare them in the pack's env, or set KINDGI_PACK_ENV_FILTER=off)",
    );
    const read = async (name: string) =>
      (await call(url, '/v1/invoke', { body: invokeBody('fixture.env', { name }) })).json.output;
    expect(await read('UNDECLARED_SECRET')).toEqual({ value: null });
    expect(await read('FIXTURE_OPTIONAL')).toEqual({ value: 'opt' });
    expect(await read('FIXTURE_REQUIRED')).toEqual({ value: 'set' });
    expect(await read('OTEL_SERVICE_NAME')).toEqual({ value: 'svc' });
    expect(svc.stderr.join('\n')).not.toContain(secret);

    const off = spawnService(args, { ...env, UNDECLARED_SECRET: secret, KINDGI_PACK_ENV_FILTER: 'off' });
    const offUrl = await listeningUrl(off);
    const kept = await call(offUrl, '/v1/invoke', { body: invokeBody('fixture.env', { name: 'UNDECLARED_SECRET' }) });
    expect(kept.json.output).toEqual({ value: secret });
    expect(off.records().some((r) => r.event === 'env-dropped')).toBe(false);
  });

  it('keeps replies and log records whole whatever pack code writes to stdout and stderr', async () => {
    const svc = spawnService(args, env);
    const url = await listeningUrl(svc);
    for (let i = 0; i < 3; i++) {
      const reply = await call(url, '/v1/invoke', { body: invokeBody('fixture.noisy') });
      expect(reply.json).toEqual({ v: 2, kind: 'result', output: { ok: true } });
    }
    await svc.waitForLine(
      (line) => line.includes('"event":"call"') && line.includes('fixture.noisy') && line.startsWith('{'),
    );
    const calls = svc.stderr.filter((line) => line.includes('"subsystem":"pack"'));
    for (const line of calls) expect(() => JSON.parse(line)).not.toThrow();
    await svc.waitForRecord(
      (r) =>
        r.event === 'call' &&
        r.id === 'fixture.noisy' &&
        svc.records().filter((x) => x.id === 'fixture.noisy').length === 3,
    );
  });

  it('loads bundles through --bundle-map', async () => {
    const indexPath = writeIndex('bundled.json', (index) => {
      index.tools = (index.tools as { id: string; modulePath: string }[])
        .filter((tool) => tool.id === 'fixture.echo')
        .map((tool) => ({ ...tool, modulePath: 'tools/echo.ts' }));
      index.guardrails = [];
    });
    const mapPath = join(tmp, 'bundle-map.json');
    writeFileSync(mapPath, JSON.stringify({ 'tools/echo.ts': 'tools/echo.mjs' }));
    const svc = spawnService(
      ['--index', indexPath, '--module-root', basicPackDir, '--bundle-map', mapPath, '--host', '127.0.0.1'],
      env,
    );
    const url = await listeningUrl(svc);
    const reply = await call(url, '/v1/invoke', { body: invokeBody('fixture.echo', { message: 'bundled' }) });
    expect(reply.json.output).toEqual({ message: 'bundled' });
  });

  it('drains in-flight calls on SIGTERM (503 draining meanwhile), then exits 0', async () => {
    const svc = spawnService(args, env);
    const url = await listeningUrl(svc);
    const release = join(tmp, `release-${process.pid}`);
    const held = call(url, '/v1/invoke', { body: invokeBody('fixture.hold', { path: release }) });
    await svc.waitForLine((line) => line === `hold: ${release}`);
    svc.child.kill('SIGTERM');
    const draining = await svc.waitForRecord((r) => r.event === 'draining');
    expect(draining).toMatchObject({ level: 'info', kind: 'draining' });
    const ready = await call(url, '/readyz');
    expect([ready.status, ready.text, ready.headers.get('retry-after')]).toEqual([503, '{"error":"draining"}', '1']);
    const refused = await call(url, '/v1/invoke', { body: invokeBody('fixture.echo', { message: 'late' }) });
    expect([refused.status, refused.text]).toEqual([503, '{"error":"draining"}']);
    writeFileSync(release, '');
    const reply = await held;
    expect(reply.json).toEqual({ v: 2, kind: 'result', output: { held: release } });
    expect(await svc.exited).toBe(0);
    expect(svc.records().some((r) => r.event === 'stopped' && r.kind === 'stopped')).toBe(true);
  });
});
