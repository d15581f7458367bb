import type { PackResponse } from '@kindgi/protocol';
import { describe, expect, it } from 'vitest';
import {
  callerOfBindings,
  composePackCall,
  type PackCall,
  type PackCaller,
  type PackCallLayer,
  toRunCheck,
  toRunHandler,
} from '../src/index.js';

const RESULT = { kind: 'ok', value: { v: 2, kind: 'result', output: 'done' } as PackResponse } as const;
const ctx = { tenantId: 't', runId: 'r' };

/** A layer that notes its name on the way in and on the way out. */
function noting(name: string, seen: string[]): PackCallLayer {
  return (next) => async (call) => {
    seen.push(`${name} in`);
    const reply = await next(call);
    seen.push(`${name} out`);
    return reply;
  };
}

describe('composePackCall', () => {
  it('runs the layers outermost first, down to the transport, and back out in reverse', async () => {
    const seen: string[] = [];
    const transport: PackCaller = async () => {
      seen.push('transport');
      return RESULT;
    };
    const callPack = composePackCall(
      noting('telemetry', seen),
      noting('routing', seen),
      noting('retry', seen),
    )(transport);
    expect(await callPack({ kind: 'invoke', tool: { id: 'x' }, input: {}, ctx })).toEqual(RESULT);
    expect(seen).toEqual([
      'telemetry in',
      'routing in',
      'retry in',
      'transport',
      'retry out',
      'routing out',
      'telemetry out',
    ]);
  });

  it('is the transport itself with no layers, and lets a layer change the call the next one sees', async () => {
    const calls: PackCall[] = [];
    const transport: PackCaller = async (call) => {
      calls.push(call);
      return RESULT;
    };
    await composePackCall()(transport)({ kind: 'invoke', tool: { id: 'x' }, input: {}, ctx });
    const pinned: PackCallLayer = (next) => (call) => next({ ...call, deadlineMs: 42 });
    await composePackCall(pinned)(transport)({ kind: 'invoke', tool: { id: 'x' }, input: {}, ctx });
    expect(calls.map((call) => call.deadlineMs)).toEqual([undefined, 42]);
  });
});

describe('the binding adapters', () => {
  it('turns a pipeline into the bindings createApp takes, and bindings back into a pipeline end', async () => {
    const seen: unknown[] = [];
    const callPack = callerOfBindings(
      async (call) => {
        seen.push(call);
        return RESULT;
      },
      async (call) => {
        seen.push(call);
        return RESULT;
      },
    );
    await toRunHandler(callPack)({ tool: { id: 'x' }, input: 1, ctx, packId: 'p' });
    await toRunCheck(callPack)({ check: { id: 'c' }, config: {}, trace: { runId: 'r', tenantId: 't' } });
    // The bindings get their own call shapes, without the pipeline's `kind`.
    expect(seen).toEqual([
      { tool: { id: 'x' }, input: 1, ctx, packId: 'p' },
      { check: { id: 'c' }, config: {}, trace: { runId: 'r', tenantId: 't' } },
    ]);
  });

  it('answers a check check-not-in-pack when no check binding was given', async () => {
    const callPack = callerOfBindings(async () => RESULT, undefined);
    const reply = await callPack({
      kind: 'check',
      check: { id: 'c' },
      config: {},
      trace: { runId: 'r', tenantId: 't' },
    });
    expect(reply).toMatchObject({ kind: 'ok', value: { kind: 'error', code: 'check-not-in-pack', checkId: 'c' } });
  });
});
