import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PACK_HEADERS, SILENCE_GRACE_MS } from '@kindgi/protocol';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPackServiceClient } from '../src/client/client.js';
import { createFrontHandler } from '../src/supervisor/front.js';
import { createCallHolds } from '../src/supervisor/hold.js';
import { relay } from '../src/transport/relay.js';

const servers: Server[] = [];
const listen = async (server: Server): Promise<string> => {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

let silentUrl: string;
const arrived: IncomingMessage[] = [];

beforeAll(async () => {
  // Reads every call and never answers: a service that took the call and went silent (it may be running it).
  silentUrl = await listen(
    createServer((req) => {
      arrived.push(req);
      req.resume();
    }),
  );
});

afterAll(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

const DEADLINE_MS = 50;

describe(`a call delivered to a pack that stays silent past its deadline and ${SILENCE_GRACE_MS} ms of grace`, () => {
  it('is `silent` for the relay, deadline-exceeded for the client and for a front: may have run, never unavailable', async () => {
    const front = createFrontHandler({
      token: 'front-token',
      state: () => ({ kind: 'serving', target: { url: silentUrl, token: 't' } }),
      holds: createCallHolds({
        state: () => ({ kind: 'serving', target: { url: silentUrl, token: 't' } }),
        maxHeld: 1,
        emit: () => undefined,
      }),
      holdMs: 1_000,
    });
    const frontUrl = await listen(createServer(front));
    const client = createPackServiceClient({ url: silentUrl, token: 't' });
    const ctx = { tenantId: 't', runId: 'r' };
    try {
      const [relayed, invoked, checked, fronted] = await Promise.all([
        relay({ url: silentUrl, token: 't' }, { body: '{}', deadlineMs: DEADLINE_MS }),
        client.invoke({ tool: 'p.slow', input: {}, ctx, deadlineMs: DEADLINE_MS }),
        client.check({ check: 'p.check', config: {}, trace: ctx, deadlineMs: DEADLINE_MS }),
        // Straight to the front (no client giving up first): the front's own answer for a silent child.
        request(`${frontUrl}/v1/invoke`, {
          method: 'POST',
          headers: {
            [PACK_HEADERS.token]: 'front-token',
            'content-type': 'application/json',
            [PACK_HEADERS.timeoutMs]: String(DEADLINE_MS),
          },
          body: '{}',
        }).then(async (reply) => ({ status: reply.statusCode, body: await reply.body.json() })),
      ]);
      expect(relayed).toMatchObject({ kind: 'err', error: { code: 'silent' } });
      expect(invoked).toMatchObject({
        kind: 'ok',
        value: { kind: 'error', code: 'deadline-exceeded', toolId: 'p.slow' },
      });
      expect(invoked.kind === 'ok' && invoked.value.kind === 'error' && invoked.value.message).toMatch(/may have run/);
      expect(checked).toMatchObject({
        kind: 'ok',
        value: { kind: 'error', code: 'deadline-exceeded', checkId: 'p.check' },
      });
      expect(fronted).toMatchObject({ status: 200, body: { v: 2, kind: 'error', code: 'deadline-exceeded' } });
      // Every one of them was delivered: the service got all four (the front relayed its call once).
      expect(arrived).toHaveLength(4);
    } finally {
      await client.close();
    }
  }, 30_000);
});
