import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { invoke, REQUIRED_ENV, type SuiteContext, toolCall } from '../context.js';
import { jsonHeaders, sendChecked } from '../http.js';
import { eventOf, newToken } from '../service-process.js';

const LEVELS = ['debug', 'info', 'warn', 'error'];

/** The process contract: PORT=0, log records, boot failures, config errors, SIGTERM drain. */
export function processCases(context: SuiteContext): void {
  it('listens on a free port with PORT=0 and says so in a listening record', async () => {
    const service = context.shared();
    expect(service.port).toBeGreaterThan(0);
    const listening = service.records.find((record) => eventOf(record) === 'listening');
    expect(listening).toMatchObject({ port: service.port, packId: 'conformance', artifactVersion: 'conformance.1' });
    for (const record of service.records.filter((r) => r.event !== undefined)) {
      expect(typeof record.time).toBe('string');
      expect(LEVELS).toContain(record.level);
      expect(typeof record.severity).toBe('string');
      expect(typeof record.subsystem).toBe('string');
      expect(typeof record.message).toBe('string');
      expect(record.kind).toBe(record.event);
    }
  });

  it('removes the token from the environment before pack code runs', async () => {
    const reply = await invoke(
      context.shared(),
      toolCall('conformance.process-env', { names: ['KINDGI_PACK_SERVICE_TOKEN'] }),
    );
    expect(reply.body).toEqual({ v: 2, kind: 'result', output: { env: { KINDGI_PACK_SERVICE_TOKEN: null } } });
  });

  it('exits 1 listing the problem when a module the index names is missing', async () => {
    const index = JSON.parse(readFileSync(context.indexPath, 'utf8'));
    index.tools[0].modulePath = 'tools/does-not-exist.mjs';
    const indexPath = join(context.dir, 'index-missing-module.json');
    writeFileSync(indexPath, JSON.stringify(index));
    const env = { ...context.baseEnv(), KINDGI_PACK_SERVICE_TOKEN: newToken(), PORT: '0', KINDGI_LOG_FORMAT: 'json' };
    const service = context.spawn({ env, indexPath });
    const { code } = await service.exited;
    expect(code).toBe(1);
    const failed = service.records.find((record) => eventOf(record) === 'boot-failed');
    expect(failed?.level).toBe('error');
    expect(JSON.stringify(failed?.problems)).toContain('does-not-exist');
  });

  it('exits 1 when the index cannot be read', async () => {
    const env = { ...context.baseEnv(), KINDGI_PACK_SERVICE_TOKEN: newToken(), PORT: '0', KINDGI_LOG_FORMAT: 'json' };
    const service = context.spawn({ env, indexPath: join(context.dir, 'no-such-index.json') });
    expect((await service.exited).code).toBe(1);
    expect(service.records.some((record) => eventOf(record) === 'boot-failed')).toBe(true);
  });

  it('exits 1 with every configuration problem in one config-invalid record', async () => {
    const env = { ...context.baseEnv(), PORT: 'eighty', KINDGI_LOG_FORMAT: 'json' };
    const service = context.spawn({ env, indexPath: context.indexPath });
    expect((await service.exited).code).toBe(1);
    const invalid = service.records.find((record) => eventOf(record) === 'config-invalid');
    const problems = JSON.stringify(invalid?.problems);
    expect(problems).toContain('KINDGI_PACK_SERVICE_TOKEN is required');
    expect(problems).toContain('PORT must be a port number');
  });

  it('drains on SIGTERM: new calls get 503, the call in flight finishes, then exit 0', async () => {
    const service = await context.start({ env: { ...context.baseEnv(), ...REQUIRED_ENV } });
    const release = join(context.dir, 'drain-release');
    const held = invoke(service, toolCall('conformance.hold', { path: release }));
    await service.line((line) => line === `hold: ${release}`);
    service.proc.kill('SIGTERM');
    await service.record((record) => eventOf(record) === 'draining');

    const refused = await sendChecked(service.url, '/v1/invoke', {
      method: 'POST',
      headers: jsonHeaders(service.token),
      body: JSON.stringify(toolCall('conformance.echo', { message: 'late' })),
    });
    expect(refused).toMatchObject({ status: 503, body: { error: 'draining' } });
    expect(refused.headers.get('retry-after')).toBe('1');
    const readyz = await sendChecked(service.url, '/readyz');
    expect(readyz.status).toBe(503);
    const info = await sendChecked(service.url, '/v1/info', { headers: { 'kindgi-pack-token': service.token } });
    expect(info.status).toBe(200);

    writeFileSync(release, '');
    expect((await held).body).toEqual({ v: 2, kind: 'result', output: { released: true } });
    expect((await service.exited).code).toBe(0);
    expect(service.records.some((record) => eventOf(record) === 'stopped')).toBe(true);
  });

  it('answers 503 overloaded at its concurrency cap (KINDGI_PACK_SERVICE_MAX_CONCURRENCY)', async () => {
    const service = await context.start({ env: { ...context.baseEnv(), KINDGI_PACK_SERVICE_MAX_CONCURRENCY: '1' } });
    const release = join(context.dir, 'overload-release');
    const held = invoke(service, toolCall('conformance.hold', { path: release }));
    await service.line((line) => line === `hold: ${release}`);
    const refused = await sendChecked(service.url, '/v1/invoke', {
      method: 'POST',
      headers: jsonHeaders(service.token),
      body: JSON.stringify(toolCall('conformance.echo', { message: 'one too many' })),
    });
    expect(refused).toMatchObject({ status: 503, body: { error: 'overloaded' } });
    expect(refused.headers.get('retry-after')).toBe('1');
    writeFileSync(release, '');
    expect((await held).body).toEqual({ v: 2, kind: 'result', output: { released: true } });
    // The slot is free the moment its reply arrived: the next call is served, not refused.
    const next = await invoke(service, toolCall('conformance.echo', { message: 'room again' }));
    expect(next.status).toBe(200);
    expect(next.body).toMatchObject({ v: 2, kind: 'result' });
  });
}
