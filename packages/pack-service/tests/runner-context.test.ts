import { describe, expect, it } from 'vitest';
import type { DeferredAbortSignal, PackRunners } from '../src/service/runners.js';
import { defaultRunners } from '../src/service/runners.js';
import { call, invokeBody, startTestService } from './pack-helpers.js';

describe('the options a custom runner receives', () => {
  it("are the default runner's: the wire ctx as parsed, and an abortSignal that fires on the deadline", async () => {
    const seen: { keys: string[]; signal: AbortSignal }[] = [];
    const runners: PackRunners = {
      ...defaultRunners,
      runHandler: (options) =>
        new Promise((resolve) => {
          const signal = (options.abortSignal as DeferredAbortSignal).signal;
          seen.push({ keys: Object.keys({ ...options.ctx }), signal });
          signal.addEventListener('abort', () => resolve({ kind: 'ok', value: null }));
        }),
    };
    const svc = await startTestService({ runners });
    try {
      const reply = await call(svc.url, '/v1/invoke', {
        body: invokeBody('fixture.echo', { message: 'x' }),
        headers: { 'kindgi-timeout-ms': '30' },
      });
      expect(reply.json).toMatchObject({ kind: 'error', code: 'deadline-exceeded' });
      expect(seen).toHaveLength(1);
      const [first] = seen;
      expect(first?.keys).toEqual(['tenantId', 'runId']);
      expect(first?.signal.aborted).toBe(true);
      expect(first?.signal.reason).toMatchObject({ name: 'TimeoutError' });
    } finally {
      await svc.close();
    }
  });
});
