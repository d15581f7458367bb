import { startScriptedModel } from '@kindgi/test-services/model-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAgentTurn } from '../src/index.js';
import { type KernelPack, startKernelPack, turnIo } from './helpers/kernel-pack.js';

let pack: KernelPack;
beforeAll(async () => {
  pack = await startKernelPack();
});
afterAll(() => pack.stop());

const turn = () => ({
  tenantId: 't1',
  runId: 'run-faults',
  agentId: 'kt.plain',
  input: { message: 'Hi' },
  ...turnIo(),
});

describe('a model that misbehaves', () => {
  it.each([true, false])('answering garbage (stream: %s) fails the turn as a bad response', async (stream) => {
    const model = await startScriptedModel([{ kind: 'garbage' }]);
    try {
      const result = await runAgentTurn(pack.bindings(model.url, { stream }), turn());
      expect(result).toMatchObject({
        kind: 'err',
        error: { code: 'model-call-failed', details: { modelError: 'model-bad-response' } },
      });
    } finally {
      await model.close();
    }
  });

  it('hanging mid-stream is cut at the deadline', async () => {
    const model = await startScriptedModel([{ kind: 'hang' }]);
    try {
      const io = turn();
      const result = await runAgentTurn(pack.bindings(model.url, { timeoutMs: 500 }), io);
      expect(result).toMatchObject({
        kind: 'err',
        error: { code: 'model-call-failed', details: { modelError: 'model-timeout' } },
      });
      // The stream had started: its first text was streamed before the deadline.
      expect(io.events.some((e) => e.kind === 'model.text')).toBe(true);
    } finally {
      await model.close();
    }
  });

  it('refusing the request (400) fails at once, without retries', async () => {
    const model = await startScriptedModel([{ kind: 'status', status: 400 }]);
    try {
      const result = await runAgentTurn(pack.bindings(model.url, { maxRetries: 2 }), turn());
      expect(result).toMatchObject({
        error: { code: 'model-call-failed', details: { modelError: 'model-refused', status: 400 } },
      });
      expect(model.requests).toHaveLength(1);
    } finally {
      await model.close();
    }
  });

  it('the turn signal cancels a model call', async () => {
    const model = await startScriptedModel([{ kind: 'hang' }]);
    try {
      const controller = new AbortController();
      const io = { ...turn(), signal: controller.signal, onEvent: () => controller.abort() };
      const result = await runAgentTurn(pack.bindings(model.url, { timeoutMs: 60_000 }), io);
      expect(result).toMatchObject({ kind: 'err', error: { code: 'turn-cancelled' } });
    } finally {
      await model.close();
    }
  });
});
