import { describe, expect, it } from 'vitest';
import {
  createScriptedRunCheck,
  createScriptedRunHandler,
  parseSseFrames,
  readSse,
  scriptedReply,
} from '../src/index.js';

const ctx = { tenantId: 't', runId: 'r' };

describe('scripted pack calls', () => {
  it('returns results, handler-throw, tool-not-in-pack and explicit replies', async () => {
    const handler = createScriptedRunHandler({
      double: (input) => (input as number) * 2,
      boom: () => {
        throw new RangeError('nope');
      },
      down: () => scriptedReply({ code: 'pack-unavailable', message: 'later' }),
    });
    expect(await handler({ tool: { id: 'double' }, input: 4, ctx })).toEqual({
      kind: 'ok',
      value: { v: 2, kind: 'result', output: 8 },
    });
    expect(await handler({ tool: { id: 'boom' }, input: 0, ctx })).toMatchObject({
      value: { kind: 'error', code: 'handler-throw', message: 'RangeError: nope', cause: { name: 'RangeError' } },
    });
    expect(await handler({ tool: { id: 'zzz' }, input: 0, ctx })).toMatchObject({
      value: { code: 'tool-not-in-pack' },
    });
    expect(await handler({ tool: { id: 'down' }, input: 0, ctx })).toEqual({
      kind: 'err',
      error: { code: 'pack-unavailable', message: 'later' },
    });
  });

  it('an aborted signal ends the call with pack-call-aborted', async () => {
    const handler = createScriptedRunHandler({ never: () => new Promise(() => undefined) });
    const controller = new AbortController();
    const pending = handler({ tool: { id: 'never' }, input: 0, ctx, signal: controller.signal });
    controller.abort();
    expect(await pending).toMatchObject({ kind: 'err', error: { code: 'pack-call-aborted' } });
  });

  it('runs checks by id', async () => {
    const check = createScriptedRunCheck({
      len: (trace, config) => ({ passed: String(trace.output).length <= Number(config.max) }),
    });
    expect(await check({ check: { id: 'len' }, config: { max: 3 }, trace: { output: 'long' } })).toEqual({
      kind: 'ok',
      value: { v: 2, kind: 'check-result', result: { passed: false } },
    });
    expect(await check({ check: { id: 'x' }, config: {}, trace: {} })).toMatchObject({
      value: { code: 'check-not-in-pack' },
    });
  });
});

describe('SSE helpers', () => {
  it('parses frames, multi-line data and comments, keeping a partial tail', () => {
    const { frames, rest } = parseSseFrames(
      'id: r:1\nevent: run.started\ndata: {"a":\ndata: 1}\n\n: keep-alive\n\nid: r:2\nda',
    );
    expect(frames).toEqual([
      { id: 'r:1', event: 'run.started', data: '{"a":\n1}', comments: [] },
      { comments: ['keep-alive'] },
    ]);
    expect(rest).toBe('id: r:2\nda');
  });

  it('reads a response until the stream ends or the predicate holds', async () => {
    const body = 'event: a\ndata: 1\n\nevent: b\ndata: 2\n\n';
    const all = await readSse(new Response(body));
    expect(all).toEqual({
      ended: true,
      frames: [expect.objectContaining({ event: 'a' }), expect.objectContaining({ event: 'b' })],
    });
    const first = await readSse(new Response(body), (frames) => frames.length >= 1);
    expect(first.frames.length).toBeGreaterThanOrEqual(1);
  });
});
