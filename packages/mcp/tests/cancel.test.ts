import { performance } from 'node:perf_hooks';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpFixture, packIndex, serveMcp, tool } from './harness.js';

const TOKEN = 'cancel-token-0123456789';
const MODES = [
  ['legacy', 'legacy'],
  ['auto', 'auto'],
  ['pinned 2026-07-28', { pin: '2026-07-28' }],
] as const;

/** The calls the slow tool saw start, and when each one's signal fired. */
const started: Array<() => void> = [];
const aborted: number[] = [];
let finished = 0;

let fixture: McpFixture;

beforeAll(async () => {
  fixture = await serveMcp({
    packs: [packIndex('acme', [tool('acme.slow'), tool('acme.echo')])],
    tokens: { [TOKEN]: 'tenant-a' },
    tools: {
      'acme.echo': (input) => input,
      'acme.slow': (_input, call) =>
        new Promise((_resolve, reject) => {
          started.shift()?.();
          call.signal?.addEventListener('abort', () => {
            aborted.push(performance.now());
            reject(new Error('aborted'));
          });
        }).finally(() => {
          finished += 1;
        }),
    },
  });
});

afterAll(async () => {
  await fixture.close();
});

async function connect(mode: (typeof MODES)[number][1]): Promise<Client> {
  const client = new Client({ name: 'kindgi-test', version: '1.0.0' }, { versionNegotiation: { mode } });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(fixture.url), {
      requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
    }),
  );
  return client;
}

describe.each(MODES)('a cancelled call, %s client', (_name, mode) => {
  it('aborts the pack call within 100 ms and answers nothing after', async () => {
    const client = await connect(mode);
    const controller = new AbortController();
    const running = new Promise<void>((resolve) => started.push(resolve));
    const before = aborted.length;
    const call = client.callTool({ name: 'acme.slow', arguments: { text: 'x' } }, { signal: controller.signal });
    await running;
    const cancelledAt = performance.now();
    controller.abort(new Error('user cancelled'));
    await expect(call).rejects.toThrow();
    // The pack saw its signal fire soon after the client gave up.
    await expect.poll(() => aborted.length, { timeout: 5000, interval: 5 }).toBe(before + 1);
    expect((aborted.at(-1) as number) - cancelledAt).toBeLessThan(100);
    // The client still works (nothing stale arrives on its next exchange).
    const echo = await client.callTool({ name: 'acme.echo', arguments: { text: 'after' } });
    expect(echo.structuredContent).toEqual({ text: 'after' });
    await client.close();
  });
});

it('every slow call finished (none left running)', async () => {
  await expect.poll(() => finished, { timeout: 5000 }).toBe(MODES.length);
});
