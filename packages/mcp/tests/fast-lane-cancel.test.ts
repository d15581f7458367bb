import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { post, wireOf } from './fast-lane-wire.js';
import { type McpFixture, packIndex, serveMcp, tool } from './harness.js';

const TOKEN = 'fast-cancel-token-0123456789';
const started: Array<() => void> = [];
const aborted: number[] = [];
const served: string[] = [];
let fixture: McpFixture;

beforeAll(async () => {
  fixture = await serveMcp({
    packs: [packIndex('acme', [tool('acme.slow')])],
    tokens: { [TOKEN]: 'tenant-a' },
    app: { onFastLane: (route) => served.push(`${route.era} ${route.method}`) },
    tools: {
      'acme.slow': (_input, call) =>
        new Promise((_resolve, reject) => {
          started.shift()?.();
          call.signal?.addEventListener('abort', () => {
            aborted.push(performance.now());
            reject(new Error('aborted'));
          });
        }),
    },
  });
});

afterAll(async () => {
  await fixture.close();
});

const slowCall = (id: number, meta: Record<string, unknown> = {}) => ({
  id,
  method: 'tools/call',
  params: { name: 'acme.slow', arguments: { text: 'x' }, _meta: meta },
});

it('a 2025-11-25 notifications/cancelled aborts the call within 100 ms and its stream ends with nothing', async () => {
  served.length = 0;
  const session = { 'mcp-session-id': 'session-1' };
  const running = new Promise<void>((resolve) => started.push(resolve));
  const before = aborted.length;
  const call = post(fixture.url, TOKEN, 'legacy', slowCall(7), session);
  await running;
  const cancelledAt = performance.now();
  const cancel = { method: 'notifications/cancelled', params: { requestId: 7, reason: 'user' } };
  expect((await post(fixture.url, TOKEN, 'legacy', cancel, session)).status).toBe(202);
  const answer = await wireOf(await call);
  expect(answer).toEqual({ status: 200, type: 'text/event-stream', messages: [] });
  expect(aborted.length).toBe(before + 1);
  expect((aborted.at(-1) as number) - cancelledAt).toBeLessThan(100);
  expect(served).toEqual(['legacy tools/call']);
});

it('a closed 2026-07-28 stream aborts the call within 100 ms', async () => {
  const running = new Promise<void>((resolve) => started.push(resolve));
  const before = aborted.length;
  const client = new AbortController();
  const call = post(fixture.url, TOKEN, 'modern', slowCall(8), {}, client.signal);
  await running;
  const closedAt = performance.now();
  client.abort();
  await expect(call).rejects.toThrow();
  await expect.poll(() => aborted.length, { timeout: 5000, interval: 5 }).toBe(before + 1);
  expect((aborted.at(-1) as number) - closedAt).toBeLessThan(100);
});

// The deadline a call names in `_meta` is enforced by the pack-call pipeline, which this in-process harness
// scripts: packages/server/tests/mcp-server.test.ts checks it end to end through the fast lane.
