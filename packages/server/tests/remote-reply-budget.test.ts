import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ByteBudget } from '@kindgi/bindings';
import { createPackServiceClient, type PackServiceClient } from '@kindgi/pack-service';
import { afterEach, describe, expect, it } from 'vitest';

// The protocol client of a remote pack reads replies through the process's reply budget: a delivered call's
// reply waits for room (its result intact, or `pack-connection-failed`: it ran), and a call that finds the
// budget spent is refused before it is sent (`pack-unavailable` + Retry-After: it did not run). A real pack
// service stand-in on 127.0.0.1 whose replies the test holds mid-body.
const MiB = 1024 * 1024;
const ctx = { tenantId: 't', runId: 'run-1', requestId: 'req-1' };
const cleanups: Array<() => unknown> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A reply of `size` bytes: a result whose output is one string. */
function replyOf(size: number, fill: string): Buffer {
  const head = '{"v":2,"kind":"result","output":{"text":"';
  const tail = '"}}';
  return Buffer.from(head + fill.repeat(size - head.length - tail.length) + tail);
}

/** Resolves once `done` holds, looking every 10 ms: a wait for an event, bounded. */
async function until(done: () => boolean, what: string): Promise<void> {
  const started = Date.now();
  while (!done()) {
    if (Date.now() - started > 30_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * A pack service whose tool `<n>.held` sends its reply's header and first half, then the rest when the test
 * says; any other tool answers a whole reply of the size its id names (`small` 1 MiB, else 2 MiB).
 */
async function heldService() {
  const received: string[] = [];
  const held = new Map<string, () => void>();
  const server: Server = createServer((req, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const toolId = (JSON.parse(Buffer.concat(chunks).toString()) as { tool: { id: string } }).tool.id;
      received.push(toolId);
      const body = replyOf(toolId.endsWith('.held') ? Math.round(9.5 * MiB) : 2 * MiB, toolId.slice(0, 1));
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length) });
      if (!toolId.endsWith('.held')) return void res.end(body);
      res.write(body.subarray(0, body.length >> 1));
      held.set(toolId, () => res.end(body.subarray(body.length >> 1)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  );
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, received, held };
}

function clientOf(url: string, budget: ByteBudget, admitWaitMs: number): PackServiceClient {
  const client = createPackServiceClient({ url, token: 'pack-token', replies: { budget, admitWaitMs } });
  cleanups.push(() => client.close());
  return client;
}

describe('remote replies through the reply budget', () => {
  it('a reply waits for room and arrives whole; a call finding the budget spent is refused unsent', async () => {
    const service = await heldService();
    const budget = new ByteBudget(10 * MiB);
    const client = clientOf(service.url, budget, 0);
    const invoke = (toolId: string) => client.invoke({ tool: toolId, input: {}, ctx, deadlineMs: 60_000 });

    // A's reply holds 9.5 MiB of the 10 from its first byte until it is decoded.
    const a = invoke('a.held');
    await until(() => budget.used === Math.round(9.5 * MiB), "A's reply to hold its room");
    // B is sent (room is left), but its 2 MiB reply waits unread behind A's.
    const b = invoke('b.two');
    await until(() => service.received.includes('b.two') && budget.waiting === 1, "B's reply to wait for room");
    // C finds the budget spent (B waits) and, with no wait allowed, is refused before it is sent.
    const c = await invoke('c.two');
    expect(c).toMatchObject({ kind: 'err', error: { code: 'pack-unavailable', retryAfterMs: expect.any(Number) } });
    expect(service.received).not.toContain('c.two');

    service.held.get('a.held')!();
    const [first, second] = await Promise.all([a, b]);
    expect(
      first.kind === 'ok' && first.value.kind === 'result' && (first.value.output as { text: string }).text,
    ).toHaveLength(Math.round(9.5 * MiB) - 44);
    expect(second).toMatchObject({ kind: 'ok', value: { kind: 'result' } });
    expect(budget.used).toBe(0);
  }, 60_000);

  it('a delivered call whose reply gets no room within its patience fails as one that may have run', async () => {
    const service = await heldService();
    const budget = new ByteBudget(10 * MiB);
    const client = clientOf(service.url, budget, 0);
    const a = client.invoke({ tool: 'a.held', input: {}, ctx, deadlineMs: 60_000 });
    await until(() => budget.used > 0, "A's reply to hold its room");
    // Patience is the deadline plus the protocol's silence grace: the reply is given up on, unread.
    const d = await client.invoke({ tool: 'd.two', input: {}, ctx, deadlineMs: 50 });
    expect(service.received).toContain('d.two');
    expect(d).toMatchObject({ kind: 'err', error: { code: 'pack-connection-failed' } });
    service.held.get('a.held')!();
    expect((await a).kind).toBe('ok');
    expect(budget.used).toBe(0);
  }, 60_000);
});
