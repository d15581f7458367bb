import { startScriptedModel } from '@kindgi/test-services/model-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAgentTurn } from '../src/index.js';
import { type KernelPack, startKernelPack, turnIo } from './helpers/kernel-pack.js';

let pack: KernelPack;
beforeAll(async () => {
  pack = await startKernelPack();
});
afterAll(() => pack.stop());

const turn = () => ({ tenantId: 't1', runId: 'run-retry', agentId: 'kt.plain', input: { message: 'Hi' }, ...turnIo() });

describe('rate limits and server errors', () => {
  it('retries 429 and 500 after their Retry-After, then answers', async () => {
    const model = await startScriptedModel([
      { kind: 'status', status: 429, retryAfter: '1' },
      { kind: 'status', status: 500, retryAfter: '0' },
      { kind: 'text', text: 'Finally.' },
    ]);
    try {
      const started = performance.now();
      const result = await runAgentTurn(pack.bindings(model.url, { maxRetries: 2 }), turn());
      expect(result).toMatchObject({ value: { status: 'completed', answer: 'Finally.' } });
      expect(model.requests).toHaveLength(3);
      // Retry-After: 1 was waited out (a lower bound, never an upper one).
      expect(performance.now() - started).toBeGreaterThanOrEqual(950);
    } finally {
      await model.close();
    }
  });

  it('gives up after its bounded retries', async () => {
    const model = await startScriptedModel([{ kind: 'status', status: 503, retryAfter: '0' }]);
    try {
      const result = await runAgentTurn(pack.bindings(model.url, { maxRetries: 2 }), turn());
      expect(result).toMatchObject({
        error: { code: 'model-call-failed', details: { modelError: 'model-unavailable', status: 503 } },
      });
      expect(model.requests).toHaveLength(3);
    } finally {
      await model.close();
    }
  });
});
