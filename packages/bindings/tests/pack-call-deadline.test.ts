import { DEFAULT_CALL_TIMEOUT_MS, type PackResponse } from '@kindgi/protocol';
import { describe, expect, it } from 'vitest';
import { composePackCall, deadlineLayer, type PackCall, type PackCaller } from '../src/index.js';

const ctx = { tenantId: 't', runId: 'r' };

function recording(): { transport: PackCaller; calls: PackCall[] } {
  const calls: PackCall[] = [];
  const transport: PackCaller = async (call) => {
    calls.push(call);
    return { kind: 'ok', value: { v: 2, kind: 'result', output: null } as PackResponse };
  };
  return { transport, calls };
}

describe('deadlineLayer', () => {
  it('gives a call without a deadline the one default, for tool calls and checks alike', async () => {
    const { transport, calls } = recording();
    const callPack = composePackCall(deadlineLayer())(transport);
    await callPack({ kind: 'invoke', tool: { id: 'x' }, input: {}, ctx });
    await callPack({ kind: 'check', check: { id: 'c' }, config: {}, trace: { runId: 'r', tenantId: 't' } });
    expect(calls.map((call) => call.deadlineMs)).toEqual([DEFAULT_CALL_TIMEOUT_MS, DEFAULT_CALL_TIMEOUT_MS]);
    expect(DEFAULT_CALL_TIMEOUT_MS).toBe(120_000);
  });

  it("keeps the caller's own deadline, and replaces one that is not a positive number", async () => {
    const { transport, calls } = recording();
    const callPack = composePackCall(deadlineLayer())(transport);
    await callPack({ kind: 'invoke', tool: { id: 'x' }, input: {}, ctx, deadlineMs: 250 });
    await callPack({ kind: 'invoke', tool: { id: 'x' }, input: {}, ctx, deadlineMs: 0 });
    await callPack({ kind: 'invoke', tool: { id: 'x' }, input: {}, ctx, deadlineMs: Number.NaN });
    expect(calls.map((call) => call.deadlineMs)).toEqual([250, DEFAULT_CALL_TIMEOUT_MS, DEFAULT_CALL_TIMEOUT_MS]);
  });
});
