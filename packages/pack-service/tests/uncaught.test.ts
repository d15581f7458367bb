import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isServiceFault } from '../src/process/uncaught.js';
import { basicIndexPath, call, invokeBody, TOKEN } from './pack-helpers.js';
import { killAll, listeningUrl, mainJs, spawnService } from './process-helpers.js';

beforeAll(() => {
  if (!existsSync(mainJs)) throw new Error('Build first: pnpm --filter @kindgi/pack-service build');
});
afterEach(killAll);

function thrownAt(...files: string[]): Error {
  const error = new Error('x');
  error.stack = ['Error: x', ...files.map((file, i) => `    at fn${i} (file://${file}:1:2)`)].join('\n');
  return error;
}

describe('isServiceFault', () => {
  const options = {
    ownCode: { files: ['/app/dist/kindgi-pack-service.mjs'], dirs: ['/repo/packages/pack-service/dist', '/app/dist'] },
    moduleRoot: '/app',
  };

  it('leaves a throw from pack code alone, wherever the pack lives', () => {
    expect(isServiceFault(thrownAt('/app/tools/echo.mjs', 'node:internal/timers'), options)).toBe(false);
    // Pack bundles beside the service's bundle are still the pack's.
    expect(isServiceFault(thrownAt('/app/dist/tools/echo/index.mjs'), options)).toBe(false);
    expect(isServiceFault('a thrown string', options)).toBe(false);
  });

  it('calls a throw that went through the service code a fault', () => {
    expect(
      isServiceFault(thrownAt('/app/tools/echo.mjs', '/repo/packages/pack-service/dist/chunk-A.js'), options),
    ).toBe(true);
    expect(isServiceFault(thrownAt('/app/dist/kindgi-pack-service.mjs'), options)).toBe(true);
    const installed = { ...options, ownCode: { files: [], dirs: ['/app/node_modules/@kindgi/handler-runtime/dist'] } };
    expect(isServiceFault(thrownAt('/app/node_modules/@kindgi/handler-runtime/dist/chunk.js'), installed)).toBe(true);
  });
});

describe('pack-service process: exceptions pack code leaves uncaught', () => {
  it('logs pack-uncaught with the stack and keeps serving every other call', async () => {
    const svc = spawnService(['--index', basicIndexPath, '--host', '127.0.0.1'], {
      PORT: '0',
      FIXTURE_REQUIRED: 'set',
      KINDGI_LOG_FORMAT: 'json',
      KINDGI_PACK_SERVICE_TOKEN: TOKEN,
    });
    const url = await listeningUrl(svc);
    const first = await call(url, '/v1/invoke', { body: invokeBody('fixture.throws-later', { message: 'late boom' }) });
    expect(first.json).toEqual({ v: 2, kind: 'result', output: { scheduled: true } });
    const record = await svc.waitForRecord((r) => r.event === 'pack-uncaught');
    expect(record).toMatchObject({ level: 'error', fatal: false });
    expect(record.message).toBe('Pack code threw outside any call: Error: late boom (the service keeps serving)');
    expect(String(record.stack)).toContain(join('basic-pack', 'tools', 'throws-later.mjs'));
    for (let i = 0; i < 3; i++) {
      const again = await call(url, '/v1/invoke', { body: invokeBody('fixture.echo', { message: `after ${i}` }) });
      expect(again.json).toEqual({ v: 2, kind: 'result', output: { message: `after ${i}` } });
    }
    expect(svc.child.exitCode).toBeNull();
  });
});
